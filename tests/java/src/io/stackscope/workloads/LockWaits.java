package io.stackscope.workloads;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Waits of known length on known locks, for the lock trace. args[0] rounds (default 20),
 * args[1] the hold in ms (default 50). Four phases, one after the other:
 * <ol>
 * <li>monitor: thread "holder-monitor" holds a Monitor object's monitor in holdMonitor for the
 *     hold, each round; thread "waiter-monitor" waits to enter it in enterMonitor meanwhile;</li>
 * <li>reentrant: the same with a ReentrantLock, "holder-reentrant" in holdReentrant and
 *     "waiter-reentrant" in enterReentrant;</li>
 * <li>object wait: the main thread calls waitLong, an Object.wait(hold) on a LongTarget that
 *     nobody notifies, each round;</li>
 * <li>short waits: the same, waitShort, Object.wait(2 ms) on a ShortTarget.</li>
 * </ol>
 * The waiter enters only once it has seen the holder inside, so each round it waits for the
 * rest of the hold. Each wait is timed by the program around the blocking call.
 *
 * Ground truth printed: "truth rounds N", and the summed waits in ns: "truth monitor_ns N",
 * "truth reentrant_ns N", "truth long_wait_ns N", "truth short_wait_ns N".
 */
public final class LockWaits {
    static final class Monitor {}
    static final class LongTarget {}
    static final class ShortTarget {}

    static final Monitor monitor = new Monitor();
    static final ReentrantLock reentrant = new ReentrantLock();
    static volatile int held;     // the round whose hold has begun
    static volatile int entered;  // the round the waiter has got the lock in
    static long holdMs;

    static void awaitAtLeast(java.util.function.IntSupplier value, int round) throws InterruptedException {
        while (value.getAsInt() < round) Thread.sleep(1);
    }

    static void holdMonitor(int round) throws InterruptedException {
        synchronized (monitor) {
            held = round;
            Thread.sleep(holdMs);
        }
    }

    static long enterMonitor(int round) {
        final long start = System.nanoTime();
        synchronized (monitor) {
            entered = round;
            return System.nanoTime() - start;
        }
    }

    static void holdReentrant(int round) throws InterruptedException {
        reentrant.lock();
        try {
            held = round;
            Thread.sleep(holdMs);
        } finally {
            reentrant.unlock();
        }
    }

    static long enterReentrant(int round) {
        final long start = System.nanoTime();
        reentrant.lock();
        try {
            entered = round;
            return System.nanoTime() - start;
        } finally {
            reentrant.unlock();
        }
    }

    interface Hold { void run(int round) throws InterruptedException; }
    interface Enter { long run(int round); }

    // One holder and one waiter thread, `rounds` rounds in step: returns the waiter's summed wait.
    static long contend(String name, int rounds, Hold hold, Enter enter) throws InterruptedException {
        held = 0;
        entered = 0;
        final long[] waited = {0};
        Thread holder = new Thread(() -> {
            try {
                for (int round = 1; round <= rounds; ++round) {
                    hold.run(round);
                    awaitAtLeast(() -> entered, round);  // the waiter gets the lock before the next hold
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "holder-" + name);
        Thread waiter = new Thread(() -> {
            try {
                for (int round = 1; round <= rounds; ++round) {
                    awaitAtLeast(() -> held, round);
                    waited[0] += enter.run(round);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "waiter-" + name);
        holder.start();
        waiter.start();
        holder.join();
        waiter.join();
        return waited[0];
    }

    static long waitOn(Object target, long ms) throws InterruptedException {
        synchronized (target) {
            final long start = System.nanoTime();
            target.wait(ms);
            return System.nanoTime() - start;
        }
    }

    static long waitLong(LongTarget target) throws InterruptedException { return waitOn(target, holdMs); }

    static long waitShort(ShortTarget target) throws InterruptedException { return waitOn(target, 2); }

    public static void main(String[] args) throws InterruptedException {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        holdMs = args.length > 1 ? Long.parseLong(args[1]) : 50;
        final long monitorNs = contend("monitor", rounds, LockWaits::holdMonitor, LockWaits::enterMonitor);
        final long reentrantNs = contend("reentrant", rounds, LockWaits::holdReentrant, LockWaits::enterReentrant);
        final LongTarget longTarget = new LongTarget();
        final ShortTarget shortTarget = new ShortTarget();
        long longNs = 0;
        long shortNs = 0;
        for (int round = 0; round < rounds; ++round) longNs += waitLong(longTarget);
        for (int round = 0; round < rounds; ++round) shortNs += waitShort(shortTarget);
        System.out.println("truth rounds " + rounds);
        System.out.println("truth monitor_ns " + monitorNs);
        System.out.println("truth reentrant_ns " + reentrantNs);
        System.out.println("truth long_wait_ns " + longNs);
        System.out.println("truth short_wait_ns " + shortNs);
    }
}
