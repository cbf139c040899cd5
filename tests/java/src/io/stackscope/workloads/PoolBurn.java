package io.stackscope.workloads;

import io.stackscope.Stackscope;

/**
 * args[1] threads (default 6) named request-handler-pool-thread-N, whose OS names all read
 * "request-handler" (Linux keeps 15 bytes), each burning CPU in work() for args[0] ms of wall
 * time (default 8000). Announces "ready" once every one has burnt a first slice, so that a
 * test attaching then finds them all running: threads the agent did not see start. Like a
 * server's workers annotating each request, thread N annotates itself as user uN%2 before
 * every 5 ms slice of work (a no-op until an agent is loaded).
 */
public final class PoolBurn {
    static final String PREFIX = "request-handler-pool-thread-";

    public static void main(String[] args) throws InterruptedException {
        long wallMs = Cpu.millis(args, 0, 8000);
        int count = (int) Cpu.millis(args, 1, 6);
        long until = System.nanoTime() + wallMs * 1_000_000L;
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(count);
        Thread[] threads = new Thread[count];
        for (int n = 0; n < count; n++) {
            final String user = "u" + (n % 2);
            threads[n] = new Thread(() -> work(started, until, user), PREFIX + n);
            threads[n].start();
        }
        started.await();
        System.out.println("ready");
        System.out.flush();
        for (Thread t : threads) t.join();
        System.out.println("done");
    }

    static void work(java.util.concurrent.CountDownLatch started, long until, String user) {
        Cpu.sink = Cpu.burn(5_000_000L);
        started.countDown();
        while (System.nanoTime() < until) {
            Stackscope.annotate(user, null, null, null, null);
            Cpu.sink = Cpu.burn(5_000_000L);
        }
    }
}
