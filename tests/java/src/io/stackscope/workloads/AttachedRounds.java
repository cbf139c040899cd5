package io.stackscope.workloads;

/**
 * Two threads that take turns in rounds, started before an attach (AttachedWaits,
 * AttachedNatives). Each round thread "holder" runs its hold (it takes a lock, waits until
 * "waiter" waits for it, and keeps it a while); "waiter" runs its round once the hold has begun,
 * and the holder starts the next round only once the waiter's round is finished. Rounds go on
 * for runMs. "ready" is printed once both threads finished their first round, "done" at the
 * end: nothing else is written to stdout.
 */
final class AttachedRounds {
    interface Hold {
        void hold(int round, Thread waiter) throws InterruptedException;
    }

    interface Round {
        void run() throws InterruptedException;
    }

    private static volatile int held;      // the round whose hold has begun
    private static volatile int finished;  // the last round the waiter finished
    private static volatile boolean over;  // no more rounds

    private AttachedRounds() {}

    /** Called by the hold once it holds its lock. */
    static void holding(int round) {
        held = round;
    }

    static void run(long runMs, Hold hold, Round waiterRound) throws InterruptedException {
        final long end = System.currentTimeMillis() + runMs;
        Thread waiter = new Thread(() -> {
            try {
                for (int round = 1; ; ++round) {
                    while (held < round && !over) Thread.onSpinWait();
                    if (held < round) return;
                    waiterRound.run();
                    finished = round;
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "waiter");
        Thread holder = new Thread(() -> {
            try {
                for (int round = 1; System.currentTimeMillis() < end; ++round) {
                    hold.hold(round, waiter);
                    while (finished < round) Thread.sleep(1);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                over = true;
            }
        }, "holder");
        waiter.start();
        holder.start();
        while (finished < 1) Thread.sleep(1);
        System.out.println("ready");
        System.out.flush();
        holder.join();
        waiter.join();
        System.out.println("done");
    }
}
