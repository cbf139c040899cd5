package io.stackscope.workloads;

/**
 * Prints "ready", then for args[0] ms of CPU (default 6000) computes sines: nearly all of the
 * time is in the JIT's Math.sin intrinsic, a stub without a Java frame of its own, called
 * from work. A profile of any window of the run has work's total at about 100 % of the
 * samples and a stub frame on top for most of them.
 */
public final class IntrinsicLoop {
    static volatile double sink;

    static double work(int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += Math.sin(i);
        }
        return s;
    }

    public static void main(String[] args) {
        long endNs = Cpu.threadNs() + Cpu.millis(args, 0, 6000) * 1_000_000L;
        System.out.println("ready");
        System.out.flush();
        while (Cpu.threadNs() < endNs) {
            sink += work(200_000);
        }
        System.out.println("done");
    }
}
