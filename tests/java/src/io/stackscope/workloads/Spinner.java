package io.stackscope.workloads;

/**
 * Prints "spinning" once started, then burns CPU until killed, or for args[0] ms of CPU if
 * given. The line tells a test when the JVM is up, so its wait before kill -9 is measured
 * from there rather than guessed around JVM start-up.
 */
public final class Spinner {
    public static void main(String[] args) {
        System.out.println("spinning");
        System.out.flush();
        if (args.length > 0) {
            Cpu.burn(Long.parseLong(args[0]) * 1_000_000L);
            return;
        }
        while (true) {
            Cpu.burn(100_000_000L);
        }
    }
}
