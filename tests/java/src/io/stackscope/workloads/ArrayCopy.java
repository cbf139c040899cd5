package io.stackscope.workloads;

/**
 * One thread splits its CPU time 50/50, in rounds of 50 ms each, between copy, which spends it
 * in System.arraycopy (a stub the JIT generates, not a compiled Java method: a stack walk
 * that starts there must still find copy below it), and compute, plain Java. About 3 s of
 * CPU in all (args[0] overrides, in ms). Prints "truth copy|compute NANOS" like ThreeWay.
 */
public final class ArrayCopy {
    private static final long SLICE_NS = 50_000_000L;
    private static final int SIZE = 1 << 16;

    public static void main(String[] args) {
        long totalMs = Cpu.millis(args, 0, 3000);
        long copyNs = 0;
        long computeNs = 0;
        for (long round = 0; round < totalMs / 100; round++) {
            long t0 = Cpu.threadNs();
            copy();
            long t1 = Cpu.threadNs();
            compute();
            long t2 = Cpu.threadNs();
            copyNs += t1 - t0;
            computeNs += t2 - t1;
        }
        System.out.println("truth copy " + copyNs);
        System.out.println("truth compute " + computeNs);
    }

    static void copy() {
        byte[] from = new byte[SIZE];
        byte[] to = new byte[SIZE];
        long end = Cpu.threadNs() + SLICE_NS;
        long x = 0;
        do {
            for (int i = 0; i < 100; i++) {
                from[i] = (byte) x;
                System.arraycopy(from, i, to, 0, SIZE - 128);
                x += to[i];
            }
        } while (Cpu.threadNs() < end);
        Cpu.sink = x;
    }

    static void compute() {
        Cpu.burn(SLICE_NS);
    }
}
