package io.stackscope.workloads;

/**
 * Two threads call one synchronized method, which burns CPU while it holds the lock, and read
 * their CPU clock twice after each call. The clock reads (system calls) are the only gap
 * between two calls: the other thread, spinning in the VM for the lock (CPU time outside Java
 * code), takes it then, and the lock changes hands all the time. So the threads' CPU time is
 * the calls of locked, the wait to enter them included, and the clock reads. From one clock
 * sample to the next there is one whole read and either a call or nothing else, so the second
 * read of each pair measures what a read costs, here and now. Prints "truth locked NANOS" (all
 * CPU time less the reads') and "truth all NANOS", summed over both threads. Runs until each
 * thread used args[0] ms of CPU time (default 3000).
 */
public final class Contended {
    // A short critical section (about 10 us): the VM spins for a lock that is soon free.
    private static final int STEPS = 2000;

    static synchronized long locked(long x) {
        for (int i = 0; i < STEPS; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= x >>> 29;
        }
        return x;
    }

    public static void main(String[] args) throws InterruptedException {
        long budget = Cpu.millis(args, 0, 3000) * 1_000_000L;
        long[] allNs = new long[2];
        long[] readsNs = new long[2];
        Thread[] threads = new Thread[2];
        for (int t = 0; t < threads.length; t++) {
            final int id = t;
            threads[t] = new Thread(() -> {
                long start = Cpu.threadNs(), now = start, x = id + 1, reads = 0;
                while (now - start < budget) {
                    x = locked(x);
                    long first = Cpu.threadNs();
                    now = Cpu.threadNs();
                    reads += 2 * (now - first);  // two reads a call
                }
                allNs[id] = now - start;
                readsNs[id] = reads;
                Cpu.sink = x;
            }, "contender-" + t);
            threads[t].start();
        }
        for (Thread thread : threads) thread.join();
        long all = allNs[0] + allNs[1];
        System.out.println("truth locked " + (all - readsNs[0] - readsNs[1]));
        System.out.println("truth all " + all);
    }
}
