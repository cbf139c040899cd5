package io.stackscope.workloads;

/**
 * Lock waits and allocations by threads that run before an attach, for the traces of an
 * attached agent (rounds of AttachedRounds). Thread "holder" holds a Gate's monitor for args[1]
 * ms (default 20) each round, from the moment it sees thread "waiter" blocked on it; "waiter"
 * enters in enter() once the round's hold has begun, and allocates 64 arrays of 64 KiB in
 * allocate() after each round. Rounds go on for args[0] ms (default 8000). "ready" is printed
 * once both threads are past their first round: an attach after it finds them running, with no
 * agent code run on them before their first callback.
 *
 * Each wait lasts at least the hold by construction (the hold starts only once the waiter is
 * blocked), and every wait and every allocation of the program is the waiter's.
 */
public final class AttachedWaits {
    static final class Gate {}

    static final Gate gate = new Gate();
    static volatile Object sink;

    static void hold(int round, Thread waiter, long ms) throws InterruptedException {
        synchronized (gate) {
            AttachedRounds.holding(round);
            while (waiter.getState() != Thread.State.BLOCKED) Thread.sleep(1);
            Thread.sleep(ms);
        }
    }

    static void enter() {
        synchronized (gate) {
            sink = gate;
        }
    }

    static void allocate() {
        for (int i = 0; i < 64; i++) sink = new byte[64 * 1024];
    }

    public static void main(String[] args) throws InterruptedException {
        final long runMs = args.length > 0 ? Long.parseLong(args[0]) : 8000;
        final long holdMs = args.length > 1 ? Long.parseLong(args[1]) : 20;
        AttachedRounds.run(runMs, (round, waiter) -> hold(round, waiter, holdMs), () -> {
            enter();
            allocate();
        });
    }
}
