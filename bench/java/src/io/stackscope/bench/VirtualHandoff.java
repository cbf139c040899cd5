package io.stackscope.bench;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.SynchronousQueue;

/**
 * Virtual threads (JDK 21+) that do nothing but hand off: args[0] pairs (default 4), each two
 * virtual threads passing a token back and forth through two SynchronousQueues, so every
 * hand-off is an unmount and a mount. A warm-up of args[1] round trips per pair (default
 * 100000), then, once the file args[3] exists (if given: bench/virtual_handoff.sh attaches
 * meanwhile), args[2] round trips per pair (default 300000), timed. Prints "warm", then
 * "handoffs N wall_ms W cpu_ms C" (process CPU of the timed part). Built for Java 17: virtual
 * threads through reflection.
 */
public final class VirtualHandoff {
    public static void main(String[] args) throws Exception {
        int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int warm = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int timed = args.length > 2 ? Integer.parseInt(args[2]) : 300_000;
        Path go = args.length > 3 ? Path.of(args[3]) : null;
        Method start = Thread.class.getMethod("startVirtualThread", Runnable.class);
        run(start, pairs, warm);
        System.out.println("warm");
        while (go != null && !Files.exists(go)) {
            Thread.sleep(10);
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        run(start, pairs, timed);
        long wallMs = (System.nanoTime() - t0) / 1_000_000;
        long cpuMs = (os.getProcessCpuTime() - cpu0) / 1_000_000;
        System.out.println("handoffs " + 2L * pairs * timed + " wall_ms " + wallMs + " cpu_ms " + cpuMs);
    }

    static void run(Method start, int pairs, int rounds) throws Exception {
        Thread[] threads = new Thread[2 * pairs];
        for (int p = 0; p < pairs; p++) {
            SynchronousQueue<Integer> there = new SynchronousQueue<>();
            SynchronousQueue<Integer> back = new SynchronousQueue<>();
            threads[2 * p] = (Thread) start.invoke(null, (Runnable) () -> serve(rounds, there, back));
            threads[2 * p + 1] = (Thread) start.invoke(null, (Runnable) () -> answer(rounds, there, back));
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    static void serve(int rounds, SynchronousQueue<Integer> there, SynchronousQueue<Integer> back) {
        try {
            for (int i = 0; i < rounds; i++) {
                there.put(i);
                back.take();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void answer(int rounds, SynchronousQueue<Integer> there, SynchronousQueue<Integer> back) {
        try {
            for (int i = 0; i < rounds; i++) {
                back.put(there.take());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
