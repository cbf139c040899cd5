package io.stackscope.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;

/**
 * Keeps running code the profiler has never seen: RATE times a second (args[1], default 20) it
 * defines Work anew in a fresh class loader, so every method is new to the JVM (new jmethodIDs)
 * and to the agent, and runs it for BURN ms (args[2], default 10) at a random recursion depth
 * (1..40), so the stacks are new too; the loaders are dropped, and a System.gc() every 2 s
 * unloads their classes, so the JVM's own memory stays about flat.
 * Runs for args[0] seconds (default 600). Paced: about RATE x BURN ms of CPU a second (20 %
 * of a core by default), so a long run leaves the machine to others.
 *
 * A profiler whose tables (methods, stacks) grow with what it has seen grows for ever here.
 */
public final class ClassChurn {
    private static final String WORK = "io.stackscope.bench.ClassChurn$Work";

    public static final class Work {
        public static long run(int depth, long untilNs) {
            if (depth > 0) return run(depth - 1, untilNs) + 1;
            long x = 1;
            while (System.nanoTime() < untilNs) x = x * 31 + 7;
            return x;
        }
    }

    private static final class OneShot extends ClassLoader {
        OneShot() {
            super(ClassChurn.class.getClassLoader());
        }

        Class<?> define(byte[] bytes) {
            return defineClass(WORK, bytes, 0, bytes.length);
        }
    }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 600;
        int rate = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        long burnNs = (args.length > 2 ? Long.parseLong(args[2]) : 10) * 1_000_000L;
        byte[] bytes = classBytes();
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        long period = 1_000_000_000L / rate;
        java.util.Random random = new java.util.Random(42);
        long sink = 0, defined = 0;
        long nextGc = start + 2_000_000_000L;
        for (long next = start; next < end; next += period) {
            if (next >= nextGc) {
                System.gc();
                nextGc += 2_000_000_000L;
            }
            Method run = new OneShot().define(bytes).getMethod("run", int.class, long.class);
            sink += (Long) run.invoke(null, 1 + random.nextInt(40), System.nanoTime() + burnNs);
            defined++;
            long wait = next + period - System.nanoTime();
            if (wait > 0) Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
        }
        System.out.println("classes " + defined + " sink " + (sink & 1));
    }

    private static byte[] classBytes() throws IOException {
        try (InputStream in = ClassChurn.class.getResourceAsStream("ClassChurn$Work.class")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toByteArray();
        }
    }
}
