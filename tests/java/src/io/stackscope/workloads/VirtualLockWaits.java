package io.stackscope.workloads;

import java.lang.reflect.Method;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToIntFunction;

/**
 * Virtual threads (JDK 21+) waiting for locks, for the lock trace. args[0] rounds (default 10),
 * args[1] waiters per lock (default 4), args[2] the hold in ms (default 20), args[3] the
 * threshold in ms the recording uses (default 1). Each round, for a Monitor object's monitor
 * and then for a fair ReentrantLock:
 * <ol>
 * <li>the main thread (a platform thread) takes the lock in holdMonitor / holdReentrant;</li>
 * <li>it starts the waiters, virtual threads that each wait to enter it in enterMonitor /
 *     enterReentrant, and a watcher virtual thread that awaits a CountDownLatch in
 *     awaitLatch;</li>
 * <li>once every waiter is seen blocked on the lock, the main thread holds it the hold more,
 *     then lets it go and awaits the latch itself (awaitLatch, on a platform thread);</li>
 * <li>each waiter in turn gets the lock, sleeps 1 ms holding it (a sleep unmounts a virtual
 *     thread without a park blocker: not a lock wait) and counts the latch down.</li>
 * </ol>
 * So each waiter waits at least the hold, once per round (fair lock: a waiter woken is the
 * one that gets it; a monitor: one contended enter however often the virtual thread is
 * mounted to try again). Each wait is timed by the program around the blocking call.
 * Built for Java 17: virtual threads are started through reflection; on a JVM without them it
 * prints "no virtual threads" and ends.
 *
 * Ground truth printed: "truth rounds N", "truth waiters N", and for each lock the waits the
 * program timed at least the threshold and their sum in ns: "truth monitor_waits N",
 * "truth monitor_ns N", "truth reentrant_waits N", "truth reentrant_ns N".
 */
public final class VirtualLockWaits {
    static final class Monitor {}

    static final Monitor monitor = new Monitor();
    static final ReentrantLock reentrant = new ReentrantLock(true);
    static Method startVirtual;
    static long thresholdNs;

    /** The waits of one lock at least the threshold long: their count and summed ns. */
    static final class Waits {
        final AtomicLong count = new AtomicLong();
        final AtomicLong ns = new AtomicLong();

        void add(long waited) {
            if (waited >= thresholdNs) {
                count.incrementAndGet();
                ns.addAndGet(waited);
            }
        }
    }

    static final Waits monitorWaits = new Waits();
    static final Waits reentrantWaits = new Waits();

    static void sleepHolding() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    static void enterMonitor(CountDownLatch done) {
        final long start = System.nanoTime();
        synchronized (monitor) {
            monitorWaits.add(System.nanoTime() - start);
            sleepHolding();
        }
        done.countDown();
    }

    static void enterReentrant(CountDownLatch done) {
        final long start = System.nanoTime();
        reentrant.lock();
        try {
            reentrantWaits.add(System.nanoTime() - start);
            sleepHolding();
        } finally {
            reentrant.unlock();
        }
        done.countDown();
    }

    static void awaitLatch(CountDownLatch done) {
        try {
            done.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    static Thread startVirtual(Runnable task) throws Exception {
        return (Thread) startVirtual.invoke(null, task);
    }

    interface Enter { void run(CountDownLatch done); }

    /** Starts the waiters and the watcher, and returns once `blocked` counts every waiter blocked on the lock. */
    static Thread[] startWaiters(int waiters, Enter enter, CountDownLatch done, ToIntFunction<Thread[]> blocked)
            throws Exception {
        Thread[] threads = new Thread[waiters + 1];
        for (int i = 0; i < waiters; i++) threads[i] = startVirtual(() -> enter.run(done));
        threads[waiters] = startVirtual(() -> awaitLatch(done));
        while (blocked.applyAsInt(threads) < waiters) Thread.sleep(1);
        return threads;
    }

    /** The threads among `threads` blocked on a monitor (a virtual thread's state says so on JDK 21+ too). */
    static int blockedOnMonitor(Thread[] threads) {
        int blocked = 0;
        for (Thread t : threads) {
            if (t.getState() == Thread.State.BLOCKED) blocked++;
        }
        return blocked;
    }

    static void hold(long holdMs) throws InterruptedException {
        Thread.sleep(holdMs);
    }

    static void finish(Thread[] threads, CountDownLatch done) throws InterruptedException {
        awaitLatch(done);
        for (Thread t : threads) t.join();
    }

    static void holdMonitor(int waiters, long holdMs) throws Exception {
        final CountDownLatch done = new CountDownLatch(waiters);
        Thread[] threads;
        synchronized (monitor) {
            threads = startWaiters(waiters, VirtualLockWaits::enterMonitor, done, VirtualLockWaits::blockedOnMonitor);
            hold(holdMs);
        }
        finish(threads, done);
    }

    static void holdReentrant(int waiters, long holdMs) throws Exception {
        final CountDownLatch done = new CountDownLatch(waiters);
        Thread[] threads;
        reentrant.lock();
        try {
            threads = startWaiters(waiters, VirtualLockWaits::enterReentrant, done, t -> reentrant.getQueueLength());
            hold(holdMs);
        } finally {
            reentrant.unlock();
        }
        finish(threads, done);
    }

    public static void main(String[] args) throws Exception {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        final int waiters = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        final long holdMs = args.length > 2 ? Long.parseLong(args[2]) : 20;
        thresholdNs = (args.length > 3 ? Long.parseLong(args[3]) : 1) * 1_000_000L;
        try {
            startVirtual = Thread.class.getMethod("startVirtualThread", Runnable.class);
        } catch (NoSuchMethodException e) {
            System.out.println("no virtual threads");
            return;
        }
        for (int round = 0; round < rounds; round++) {
            holdMonitor(waiters, holdMs);
            holdReentrant(waiters, holdMs);
        }
        System.out.println("truth rounds " + rounds);
        System.out.println("truth waiters " + waiters);
        System.out.println("truth monitor_waits " + monitorWaits.count.get());
        System.out.println("truth monitor_ns " + monitorWaits.ns.get());
        System.out.println("truth reentrant_waits " + reentrantWaits.count.get());
        System.out.println("truth reentrant_ns " + reentrantWaits.ns.get());
    }
}
