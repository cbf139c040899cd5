package io.stackscope.workloads;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The natives an attached agent must bind again (agent/bound_natives.h), called by threads that
 * run before the attach (rounds of AttachedRounds). Each round, thread "holder" holds a
 * ReentrantLock for args[1] ms (default 20) from the moment it sees thread "waiter" parked on
 * it; "waiter" takes the lock in enter() (Unsafe.park), then creates one Marker exception in
 * fail() (Throwable.fillInStackTrace) and starts one thread "child" in spawn()
 * (Thread.start0), which burns about 25 ms of CPU in burn() (more than the 10 ms sampling
 * interval, so that each child has samples) before the round ends. Rounds go on for args[0] ms
 * (default 8000).
 *
 * By construction each round has one park of the waiter in enter(), lasting at least the hold,
 * on the lock the holder owns; one Marker created in fail(); and one child started in spawn():
 * a recording of whole rounds counts as many of each.
 */
public final class AttachedNatives {
    static final class Marker extends RuntimeException {
        Marker() {
            super("marker");
        }
    }

    static final ReentrantLock lock = new ReentrantLock();
    static volatile long sink;

    static void hold(int round, Thread waiter, long ms) throws InterruptedException {
        lock.lock();
        try {
            AttachedRounds.holding(round);
            // The waiter's last round is finished: WAITING now can only be its park in enter().
            while (waiter.getState() != Thread.State.WAITING) Thread.sleep(1);
            Thread.sleep(ms);
        } finally {
            lock.unlock();
        }
    }

    static void enter() {
        lock.lock();
        lock.unlock();
    }

    static int fail() {
        try {
            throw new Marker();
        } catch (Marker e) {
            return e.getMessage().length();
        }
    }

    static void spawn() throws InterruptedException {
        Thread child = new Thread(AttachedNatives::burn, "child");
        child.start();
        child.join();
    }

    static void burn() {
        final long end = System.nanoTime() + 25_000_000;
        long x = 1;
        while (System.nanoTime() < end) x = x * 31 + 7;
        sink = x;
    }

    public static void main(String[] args) throws InterruptedException {
        final long runMs = args.length > 0 ? Long.parseLong(args[0]) : 8000;
        final long holdMs = args.length > 1 ? Long.parseLong(args[1]) : 20;
        AttachedRounds.run(runMs, (round, waiter) -> hold(round, waiter, holdMs), () -> {
            enter();
            sink += fail();
            spawn();
        });
    }
}
