package io.stackscope.workloads;

import io.stackscope.Stackscope;

/**
 * A program in three phases, each a begin/end marker pair: "init" burns args[0] ms of CPU
 * (default 500) in Init.run, "work" burns args[1] ms (default 1500) in Work.run, "idle" sleeps
 * args[2] ms (default 1000) in Idle.run. Point markers "a" and "b" sit just inside "work", so
 * the span a..b is the work phase too. Prints "truth init|work NANOS" (CPU) and
 * "truth idle NANOS" (wall).
 */
public final class PhasesMarked {
    private static final long MS = 1_000_000L;

    public static void main(String[] args) throws InterruptedException {
        long initMs = Cpu.millis(args, 0, 500);
        long workMs = Cpu.millis(args, 1, 1500);
        long idleMs = Cpu.millis(args, 2, 1000);

        Stackscope.begin("init");
        long init = Init.run(initMs * MS);
        Stackscope.end("init");

        Stackscope.begin("work");
        Stackscope.mark("a");
        long work = Work.run(workMs * MS);
        Stackscope.mark("b");
        Stackscope.end("work");

        Stackscope.begin("idle");
        long idle = Idle.run(idleMs);
        Stackscope.end("idle");

        System.out.println("truth init " + init);
        System.out.println("truth work " + work);
        System.out.println("truth idle " + idle);
    }

    static final class Init {
        static long run(long ns) { return Cpu.burn(ns); }
    }

    static final class Work {
        static long run(long ns) { return Cpu.burn(ns); }
    }

    static final class Idle {
        static long run(long ms) throws InterruptedException {
            long start = System.nanoTime();
            Thread.sleep(ms);
            return System.nanoTime() - start;
        }
    }
}
