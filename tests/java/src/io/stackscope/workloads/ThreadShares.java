package io.stackscope.workloads;

/**
 * Three threads, "busy-50", "busy-30" and "busy-20", burn 1500, 900 and 600 ms of CPU side
 * by side (args[0] scales: total ms), more threads than this machine's two cores, so they
 * are preempted and migrate as real programs' threads are. Each prints "truth NAME NANOS",
 * its own CPU time, which its samples must be proportional to.
 */
public final class ThreadShares {
    public static void main(String[] args) throws InterruptedException {
        long totalMs = Cpu.millis(args, 0, 3000);
        int[] percents = {50, 30, 20};
        Thread[] threads = new Thread[percents.length];
        for (int i = 0; i < percents.length; i++) {
            long budgetNs = totalMs * percents[i] * 10_000L;
            threads[i] = new Thread(() -> {
                Cpu.burn(budgetNs);
                // One println call per line keeps the lines of different threads whole.
                System.out.println("truth " + Thread.currentThread().getName() + " " + Cpu.threadNs());
            }, "busy-" + percents[i]);
            threads[i].start();
        }
        for (Thread t : threads) {
            t.join();
        }
    }
}
