package io.stackscope.workloads;

/**
 * Calls System.gc() args[0] times (default 20), nothing else: with -XX:+UseSerialGC and
 * -XX:-ExplicitGCInvokesConcurrent each call is exactly one full collection of cause
 * "System.gc()", and the heap (-Xmx64m, little allocated) never needs another one.
 *
 * Ground truth printed: "truth gcs N".
 */
public final class ForcedGcs {
    public static void main(String[] args) {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        for (int i = 0; i < count; ++i) System.gc();
        System.out.println("truth gcs " + count);
    }
}
