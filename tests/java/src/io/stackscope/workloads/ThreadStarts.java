package io.stackscope.workloads;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Threads started by known methods: main starts "outer" in spawnOuter, outer starts "inner" in
 * spawnInner, and a pool of two threads (started by the JDK's ThreadPoolExecutor) runs four
 * tasks. Each thread burns a known budget of its own CPU time (args[0] scales it, in ms per
 * unit: main 1, outer 2, inner 3, each task 1.5) and prints "truth NAME NANOS", the CPU time it
 * measured.
 */
public final class ThreadStarts {
    private static long unitNs;

    public static void main(String[] args) throws Exception {
        unitNs = Cpu.millis(args, 0, 100) * 1_000_000L;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        long[] tasks = new long[4];
        for (int i = 0; i < tasks.length; i++) {
            int task = i;
            pool.submit(() -> tasks[task] = Cpu.burn(unitNs * 3 / 2));
        }
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        long[] spent = new long[2];  // outer, inner
        spawnOuter(spent).join();
        long main = Cpu.burn(unitNs);
        System.out.println("truth main " + main);
        System.out.println("truth pool " + (tasks[0] + tasks[1] + tasks[2] + tasks[3]));
        System.out.println("truth outer " + spent[0]);
        System.out.println("truth inner " + spent[1]);
    }

    static Thread spawnOuter(long[] spent) {
        Thread outer = new Thread(() -> {
            Thread inner = spawnInner(spent);
            spent[0] = Cpu.burn(2 * unitNs);
            try {
                inner.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "outer");
        outer.start();
        return outer;
    }

    static Thread spawnInner(long[] spent) {
        Thread inner = new Thread(() -> spent[1] = Cpu.burn(3 * unitNs), "inner");
        inner.start();
        return inner;
    }
}
