package io.stackscope.bench;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Benchmark workload for bench/overhead.sh, single-threaded and CPU-bound.
 *
 * "work [REPEATS]": a fixed amount of work (not a fixed time, so a slower run shows as a
 * longer one) spread over four methods of different kinds; prints "work_ns N", the wall
 * time of the work alone, which leaves JVM start-up and shutdown out of the ratio.
 *
 * "loop MS": one tight loop for MS ms of this thread's CPU time, the steadiest stack there
 * is, for samples taken vs due and bytes per sample.
 *
 * Both print "cpu_ns N", main's CPU time, which is what cpu sampling is due on.
 */
public final class FixedWork {
    private static volatile long sink;

    public static void main(String[] args) {
        String mode = args.length > 0 ? args[0] : "work";
        long start = System.nanoTime();
        if (mode.equals("work")) {
            int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 10;
            for (int r = 0; r < repeats; r++) {
                sink += multiplyMatrices(120) + sortArrays(r) + countWords(r) + mixIntegers();
            }
            System.out.println("work_ns " + (System.nanoTime() - start));
        } else {
            loop(Long.parseLong(args[1]) * 1_000_000L);
        }
        System.out.println("cpu_ns " + threadCpuNs());
    }

    private static long threadCpuNs() {
        return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    static long multiplyMatrices(int n) {
        double[][] a = new double[n][n];
        double[][] b = new double[n][n];
        double[][] c = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                a[i][j] = i + j;
                b[i][j] = i - j;
            }
        }
        for (int rep = 0; rep < 200; rep++) {
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < n; k++) {
                    double aik = a[i][k];
                    for (int j = 0; j < n; j++) {
                        c[i][j] += aik * b[k][j];
                    }
                }
            }
        }
        return (long) c[n - 1][n - 1];
    }

    static long sortArrays(int seed) {
        long x = seed + 1;
        long sum = 0;
        int[] data = new int[200_000];
        for (int rep = 0; rep < 6; rep++) {
            for (int i = 0; i < data.length; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                data[i] = (int) (x >>> 33);
            }
            Arrays.sort(data);
            sum += data[data.length / 2];
        }
        return sum;
    }

    static long countWords(int seed) {
        Map<String, Integer> counts = new HashMap<>();
        StringBuilder word = new StringBuilder();
        long x = seed + 7;
        for (int i = 0; i < 1_600_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            word.setLength(0);
            word.append("w").append((x >>> 40) % 5000);
            counts.merge(word.toString(), 1, Integer::sum);
        }
        return counts.size();
    }

    static long mixIntegers() {
        long x = 1;
        for (int i = 0; i < 60_000_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= x >>> 29;
        }
        return x;
    }

    static void loop(long budgetNs) {
        long end = threadCpuNs() + budgetNs;
        long x = 1;
        do {
            for (int i = 0; i < 100_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
        } while (threadCpuNs() < end);
        sink = x;
    }
}
