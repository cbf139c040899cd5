package io.stackscope.workloads;

/**
 * Virtual threads (JDK 21+) that burn CPU: args[0] threads (default 2), each mixing integers
 * for args[1] ms of wall time (default 1500) in spin(), never blocking, so each stays mounted
 * on its carrier all along. Wall time, not CPU time: the JDK gives no CPU time of a virtual
 * thread. Built for Java 17, so virtual threads are started through reflection; on a JVM
 * without them it prints "no virtual threads" and ends. Prints "virtual N".
 */
public final class VirtualBurn {
    public static void main(String[] args) throws Exception {
        int count = (int) Cpu.millis(args, 0, 2);
        long spinNs = Cpu.millis(args, 1, 1500) * 1_000_000L;
        if (!VirtualThreads.runAll(count, () -> spin(spinNs))) {
            return;
        }
        System.out.println("virtual " + count);
    }

    static void spin(long ns) {
        long end = System.nanoTime() + ns;
        long x = 1;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 20_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
        }
        Cpu.sink = x;
    }
}
