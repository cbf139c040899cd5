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
 * The waiter enters only once it has seen the holder inside, and the holder starts its hold
 * only once it sees the waiter blocked on the lock, so each round is one wait of at least the
 * hold however late the threads are scheduled (on a loaded machine the waiter's poll could
 * wake after a hold from its start had ended, and that round had no wait). Each wait is timed
 * by the program around the blocking call.
 *
 * args[2] (default 10) a threshold in ms: "truth short_waits_over_threshold N" counts the
 * Object.wait(2 ms) calls the program timed at least that long (a loaded machine may give the
 * thread its CPU back tens of ms late).
 *
 * args[3] "fresh": each round of the monitor phase locks a Monitor of its own, never locked
 * before, so that the holder holds it as a lock not yet inflated (on its stack, or HotSpot 24+'s
 * lock stack) when the waiter comes; by default every round locks the same one.
 *
 * Ground truth printed: "truth rounds N", and the summed waits in ns: "truth monitor_ns N",
 * "truth reentrant_ns N", "truth long_wait_ns N", "truth short_wait_ns N".
 */
public final class LockWaits {
    static final class Monitor {}
    static final class LongTarget {}
    static final class ShortTarget {}

    static Monitor[] monitors;  // the monitor of each round (all the same unless "fresh")
    static final ReentrantLock reentrant = new ReentrantLock();
    static volatile int held;     // the round whose hold has begun
    static volatile int entered;  // the round the waiter has got the lock in
    static long holdMs;

    static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        while (!condition.getAsBoolean()) Thread.sleep(1);
    }

    static void holdMonitor(int round, Thread waiter) throws InterruptedException {
        synchronized (monitors[round]) {
            held = round;
            // Polled here, not in awaitTrue: a look that sees the holder in this poll sees it in
            // the method that holds the lock, and awaitTrue is only ever called outside a hold.
            while (waiter.getState() != Thread.State.BLOCKED) Thread.sleep(1);
            Thread.sleep(holdMs);
        }
    }

    static long enterMonitor(int round) {
        final long start = System.nanoTime();
        synchronized (monitors[round]) {
            entered = round;
            return System.nanoTime() - start;
        }
    }

    static void holdReentrant(int round, Thread waiter) throws InterruptedException {
        reentrant.lock();
        try {
            held = round;
            while (!reentrant.hasQueuedThread(waiter)) Thread.sleep(1);  // as in holdMonitor
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

    interface Hold { void run(int round, Thread waiter) throws InterruptedException; }
    interface Enter { long run(int round); }

    // One holder and one waiter thread, `rounds` rounds in step: returns the waiter's summed wait.
    static long contend(String name, int rounds, Hold hold, Enter enter) throws InterruptedException {
        held = 0;
        entered = 0;
        final long[] waited = {0};
        Thread waiter = new Thread(() -> {
            try {
                for (int round = 1; round <= rounds; ++round) {
                    final int current = round;
                    awaitTrue(() -> held >= current);
                    waited[0] += enter.run(round);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "waiter-" + name);
        Thread holder = new Thread(() -> {
            try {
                for (int round = 1; round <= rounds; ++round) {
                    final int current = round;
                    hold.run(round, waiter);
                    awaitTrue(() -> entered >= current);  // the waiter gets the lock before the next hold
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "holder-" + name);
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
        final long thresholdNs = (args.length > 2 ? Long.parseLong(args[2]) : 10) * 1_000_000L;
        final boolean fresh = args.length > 3 && args[3].equals("fresh");
        monitors = new Monitor[rounds + 1];
        monitors[0] = new Monitor();
        for (int round = 1; round <= rounds; ++round) monitors[round] = fresh ? new Monitor() : monitors[0];
        final long monitorNs = contend("monitor", rounds, LockWaits::holdMonitor, LockWaits::enterMonitor);
        final long reentrantNs = contend("reentrant", rounds, LockWaits::holdReentrant, LockWaits::enterReentrant);
        final LongTarget longTarget = new LongTarget();
        final ShortTarget shortTarget = new ShortTarget();
        long longNs = 0;
        long shortNs = 0;
        int shortOverThreshold = 0;
        for (int round = 0; round < rounds; ++round) longNs += waitLong(longTarget);
        for (int round = 0; round < rounds; ++round) {
            final long waited = waitShort(shortTarget);
            shortNs += waited;
            if (waited >= thresholdNs) ++shortOverThreshold;
        }
        System.out.println("truth rounds " + rounds);
        System.out.println("truth monitor_ns " + monitorNs);
        System.out.println("truth reentrant_ns " + reentrantNs);
        System.out.println("truth long_wait_ns " + longNs);
        System.out.println("truth short_wait_ns " + shortNs);
        System.out.println("truth short_waits_over_threshold " + shortOverThreshold);
    }
}
