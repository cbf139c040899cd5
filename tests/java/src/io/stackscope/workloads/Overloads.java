package io.stackscope.workloads;

/**
 * One thread splits its CPU time 70/30 between two overloads of one name, work(int) and
 * work(String), in rounds of 70 + 30 ms of CPU time, for about 3 s of CPU in all (args[0]
 * overrides, in ms). The rounds run inside a lambda, so the stacks carry a lambda class whose
 * name holds a run-specific address. Prints "truth NAME NANOS" per overload: the CPU time
 * measured around its calls, and "callsite NAME LINE": the line that calls it.
 */
public final class Overloads {
    private static final long MS = 1_000_000L;
    private static final long ROUND_MS = 100;

    /** The budget of the next call: a field, so the overloads differ by one parameter only. */
    private static long budgetNs;

    public static void main(String[] args) {
        long totalMs = Cpu.millis(args, 0, 3000);
        long[] spent = new long[2];
        Runnable rounds = () -> {
            long x = 1;
            for (long round = 0; round < totalMs / ROUND_MS; round++) {
                long t0 = Cpu.threadNs();
                budgetNs = 70 * MS;
                x = work((int) x | 1);
                long t1 = Cpu.threadNs();
                budgetNs = 30 * MS;
                x = work(Long.toString(x));
                long t2 = Cpu.threadNs();
                spent[0] += t1 - t0;
                spent[1] += t2 - t1;
            }
            Cpu.sink = x;
        };
        rounds.run();
        System.out.println("truth work(int) " + spent[0]);
        System.out.println("truth work(String) " + spent[1]);
        System.out.println("callsite work(int) " + intCallLine);
        System.out.println("callsite work(String) " + stringCallLine);
    }

    /** The source lines that call each overload, as the JVM itself reports them. */
    private static int intCallLine, stringCallLine;

    static long work(int seed) {
        if (intCallLine == 0) intCallLine = callerLine();
        return Cpu.mix(seed, budgetNs);
    }

    static long work(String seed) {
        if (stringCallLine == 0) stringCallLine = callerLine();
        return Cpu.shuffle(seed.length(), budgetNs);
    }

    /** The line of the call to the method that calls this one. */
    private static int callerLine() {
        return StackWalker.getInstance().walk(frames -> frames.skip(2).findFirst())
                .map(StackWalker.StackFrame::getLineNumber).orElse(-1);
    }
}
