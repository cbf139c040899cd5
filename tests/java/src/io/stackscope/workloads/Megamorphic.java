package io.stackscope.workloads;

/**
 * One call site calls four implementations of an interface in turn, so it is megamorphic: the
 * JIT dispatches it through an itable stub and inlines none of the four. Each does a known
 * number of steps, 2, 4, 6 and 8 (a step is a multiply-add and a xor-shift, which the JIT can
 * neither fold nor skip), so their CPU time splits about 10/20/30/40 % among them. The bodies
 * are a few dozen instructions: a good part of each call is spent building and popping the
 * callee's frame, where the samples still belong to the callee. Runs for args[0] ms of CPU
 * time (default 3000).
 */
public final class Megamorphic {
    private static final int STEPS = 2;

    interface Work {
        long apply(long x);
    }

    // Four classes, each with its own loop, so each body is a compiled method of its own.
    static final class One implements Work {
        public long apply(long x) {
            for (int i = 0; i < STEPS; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
            return x;
        }
    }

    static final class Two implements Work {
        public long apply(long x) {
            for (int i = 0; i < 2 * STEPS; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
            return x;
        }
    }

    static final class Three implements Work {
        public long apply(long x) {
            for (int i = 0; i < 3 * STEPS; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
            return x;
        }
    }

    static final class Four implements Work {
        public long apply(long x) {
            for (int i = 0; i < 4 * STEPS; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
            return x;
        }
    }

    public static void main(String[] args) {
        long end = Cpu.threadNs() + Cpu.millis(args, 0, 3000) * 1_000_000L;
        Work[] works = {new One(), new Two(), new Three(), new Four()};
        long x = 1;
        while (Cpu.threadNs() < end) x = callAll(works, x);
        Cpu.sink = x;
    }

    // The megamorphic call site, in a method of its own that the JIT compiles early.
    static long callAll(Work[] works, long x) {
        for (int r = 0; r < 100_000; r++) x = works[r & 3].apply(x);
        return x;
    }
}
