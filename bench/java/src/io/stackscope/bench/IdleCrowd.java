package io.stackscope.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Many idle threads beside a few busy ones, as a server at rest between requests: IDLE
 * threads wait on a latch (parked) while BUSY threads mix integers for SECONDS of wall time.
 * Prints "ops N", the busy threads' total work, so a profiler's cost shows as lost
 * throughput. Usage: IdleCrowd IDLE BUSY SECONDS
 */
public final class IdleCrowd {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        int idle = Integer.parseInt(args[0]);
        int busy = Integer.parseInt(args[1]);
        long nanos = (long) (Double.parseDouble(args[2]) * 1e9);
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> idlers = new ArrayList<>();
        for (int i = 0; i < idle; i++) {
            Thread t = new Thread(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "idle-" + i);
            t.setDaemon(true);
            t.start();
            idlers.add(t);
        }
        // Every idle thread parked before the measured phase starts.
        for (Thread t : idlers) {
            while (t.getState() != Thread.State.WAITING) {
                Thread.sleep(1);
            }
        }
        long[] ops = new long[busy];
        Thread[] workers = new Thread[busy];
        long end = System.nanoTime() + nanos;
        for (int i = 0; i < busy; i++) {
            int me = i;
            workers[i] = new Thread(() -> {
                long x = me + 1;
                long n = 0;
                while (System.nanoTime() < end) {
                    for (int k = 0; k < 10_000; k++) {
                        x = x * 6364136223846793005L + 1442695040888963407L;
                        x ^= x >>> 29;
                    }
                    n++;
                }
                sink += x;
                ops[me] = n;
            }, "busy-" + i);
            workers[i].start();
        }
        long total = 0;
        for (int i = 0; i < busy; i++) {
            workers[i].join();
            total += ops[i];
        }
        release.countDown();
        System.out.println("ops " + total);
    }
}
