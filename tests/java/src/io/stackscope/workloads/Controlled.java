package io.stackscope.workloads;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * For the control server's tests: burns CPU in phaseA until the file args[0] exists, prints
 * "phase b", then burns in phaseB until the file args[1] exists. Prints "ready" once phaseA
 * has run a while, so a test connects to a JVM that is up and being sampled. Each phase ends
 * after 120 s at the latest, so a failed test never leaves it spinning.
 */
public final class Controlled {
    private static final long LIMIT_NS = 120_000_000_000L;

    public static void main(String[] args) {
        phaseA(Path.of(args[0]));
        System.out.println("phase b");
        System.out.flush();
        phaseB(Path.of(args[1]));
    }

    static void phaseA(Path until) {
        long end = System.nanoTime() + LIMIT_NS;
        Cpu.burn(50_000_000L);
        System.out.println("ready");
        System.out.flush();
        while (!Files.exists(until) && System.nanoTime() < end) {
            Cpu.burn(5_000_000L);
        }
    }

    static void phaseB(Path until) {
        long end = System.nanoTime() + LIMIT_NS;
        while (!Files.exists(until) && System.nanoTime() < end) {
            Cpu.burn(5_000_000L);
        }
    }
}
