package io.stackscope.workloads;

import io.stackscope.Stackscope;

/**
 * More distinct annotations than the agent keeps (100 000): main annotates itself with
 * args[0] distinct users (default 100 100), one after the other, then as user "late" burns
 * args[1] ms of CPU (default 300) in Many.burn. The agent's table is full by then, so "late"
 * and the last 100 users are recorded as the one "(overflow)" annotation.
 */
public final class AnnotatedMany {
    public static void main(String[] args) {
        long users = Cpu.millis(args, 0, 100_100);
        long ms = Cpu.millis(args, 1, 300);
        for (long i = 0; i < users; i++) Stackscope.annotate("user-" + i, null, null, null, null);
        Stackscope.annotate("late", null, null, null, null);
        Many.burn(ms * 1_000_000L);
        System.out.println("done");
    }

    static final class Many {
        static void burn(long ns) { Cpu.burn(ns); }
    }
}
