package io.stackscope.workloads;

import io.stackscope.Stackscope;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * A program that spends a large share of its CPU collecting garbage: the main thread replaces
 * random entries of a large retained table with new objects, so every collection has many
 * live objects to trace and copy. The "work" marker pair brackets args[0] ms of the main
 * thread's CPU (default 3000) after a warm-up of 800 ms.
 *
 * Prints, for the work phase: "truth process NANOS" (the whole process's CPU time),
 * "truth main NANOS" (the main thread's), and "truth thread:NAME NANOS" for every other
 * thread by its OS name, spaces as '_' (from /proc/self/task, in 10 ms clock ticks), so the
 * test knows how much CPU the JVM's own threads (the serial collector runs in "VM Thread")
 * used.
 */
public final class GcHeavy {
    private static final long MS = 1_000_000L;
    private static final Object[] TABLE = new Object[200_000];

    public static void main(String[] args) throws IOException {
        long workMs = Cpu.millis(args, 0, 3000);
        SplittableRandom random = new SplittableRandom(42);
        churn(random, 800 * MS);

        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Map<String, Long> threadsBefore = threadCpu();
        long processBefore = os.getProcessCpuTime();
        long mainBefore = Cpu.threadNs();
        Stackscope.begin("work");
        churn(random, workMs * MS);
        Stackscope.end("work");
        long mainNs = Cpu.threadNs() - mainBefore;
        long processNs = os.getProcessCpuTime() - processBefore;
        Map<String, Long> threadsAfter = threadCpu();

        System.out.println("truth process " + processNs);
        System.out.println("truth main " + mainNs);
        threadsAfter.forEach((name, after) -> {
            if (!name.equals("main")) {
                long ns = after - threadsBefore.getOrDefault(name, 0L);
                System.out.println("truth thread:" + name.replace(' ', '_') + " " + ns);
            }
        });
    }

    /** Replaces table entries with new arrays for budgetNs of the calling thread's CPU. */
    static void churn(SplittableRandom random, long budgetNs) {
        long end = Cpu.threadNs() + budgetNs;
        long made = 0;
        while (Cpu.threadNs() < end) {
            for (int i = 0; i < 10_000; i++) {
                TABLE[random.nextInt(TABLE.length)] = new long[4 + random.nextInt(28)];
            }
            made += 10_000;
        }
        Cpu.sink = made;
    }

    /** CPU time per OS thread name (names shared by several threads are summed), in ns. */
    static Map<String, Long> threadCpu() throws IOException {
        Map<String, Long> cpu = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    int close = stat.lastIndexOf(')');
                    String name = stat.substring(stat.indexOf('(') + 1, close);
                    String[] fields = stat.substring(close + 2).split(" ");
                    // Fields 14 and 15 (utime, stime), counted from the state (field 3) here.
                    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                    cpu.merge(name, ticks * 10 * MS, Long::sum);  // USER_HZ is 100 on Linux
                } catch (IOException ended) {
                    // The thread ended while the list was read: its time is not counted.
                }
            }
        }
        return cpu;
    }
}
