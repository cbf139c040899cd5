package io.stackscope.workloads;

/**
 * One call site calls four implementations of an interface, so it is megamorphic: the JIT
 * dispatches it through an itable stub and inlines none of the four. The four bodies are the same
 * few dozen instructions (a multiply-add and a xor-shift, STEPS times, which the JIT can neither
 * fold nor skip), and each round of ten calls calls One once, Two twice, Three three times and
 * Four four times, so their CPU time splits 10/20/30/40 % among them whatever the processor
 * makes of the body. (Bodies of 2, 4, 6 and 8 steps split 7/19/31/43 on a Xeon, as perf's own
 * samples showed: the split depended on the processor, not only on the work.) A good part of each
 * call is spent building and popping the callee's frame, where the samples still belong to the
 * callee. Runs for args[0] ms of CPU time (default 3000).
 */
public final class Megamorphic {
    private static final int STEPS = 5;

    interface Work {
        long apply(long x);
    }

    // Four classes with the same body, so each is a compiled method of its own.
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
            for (int i = 0; i < STEPS; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
            return x;
        }
    }

    static final class Three implements Work {
        public long apply(long x) {
            for (int i = 0; i < STEPS; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
            return x;
        }
    }

    static final class Four implements Work {
        public long apply(long x) {
            for (int i = 0; i < STEPS; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
            return x;
        }
    }

    public static void main(String[] args) {
        long end = Cpu.threadNs() + Cpu.millis(args, 0, 3000) * 1_000_000L;
        Work one = new One(), two = new Two(), three = new Three(), four = new Four();
        // A round of ten calls, the receivers interleaved so that no one runs twice in a row.
        Work[] round = {four, three, two, four, one, three, four, two, three, four};
        long x = 1;
        while (Cpu.threadNs() < end) x = callAll(round, x);
        Cpu.sink = x;
    }

    // The megamorphic call site, in a method of its own that the JIT compiles early.
    static long callAll(Work[] round, long x) {
        for (int r = 0, k = 0; r < 100_000; r++) {
            x = round[k].apply(x);
            if (++k == round.length) k = 0;
        }
        return x;
    }
}
