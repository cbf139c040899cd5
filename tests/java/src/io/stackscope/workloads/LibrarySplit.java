package io.stackscope.workloads;

import java.util.Arrays;
import java.util.Random;

/**
 * CPU split between the application's own code (this jar) and the JDK's java.base module: main
 * burns a budget in Cpu.mix (this jar's code), then twice that budget sorting arrays with
 * java.util.Arrays.sort (java.base). args[0] is the budget in ms. Prints "truth app NANOS" and
 * "truth jdk NANOS", the CPU time each part measured.
 */
public final class LibrarySplit {
    public static void main(String[] args) {
        long unitNs = Cpu.millis(args, 0, 500) * 1_000_000L;
        long app = Cpu.burn(unitNs);
        long jdk = sortFor(2 * unitNs);
        System.out.println("truth app " + app);
        System.out.println("truth jdk " + jdk);
    }

    /** Sorts a copy of one shuffled array until budgetNs of CPU time is spent; returns it. */
    static long sortFor(long budgetNs) {
        int[] shuffled = new Random(42).ints(20_000).toArray();
        int[] work = new int[shuffled.length];
        long start = Cpu.threadNs();
        long end = start + budgetNs;
        do {
            // The copy is a few microseconds next to the sort's milliseconds.
            System.arraycopy(shuffled, 0, work, 0, work.length);
            Arrays.sort(work);
            Cpu.sink += work[work.length / 2];
        } while (Cpu.threadNs() < end);
        return Cpu.threadNs() - start;
    }
}
