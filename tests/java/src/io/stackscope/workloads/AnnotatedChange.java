package io.stackscope.workloads;

import io.stackscope.Stackscope;

/**
 * One thread works for request r1, then for request r2, in the same method (Request.serve),
 * so only the moment of the annotation change can tell the two apart. Point markers "start",
 * "switch" (at the change) and "stop" (once the annotation is cleared) bound the two phases.
 *
 * args[0] "cpu" (default): r1 burns args[1] ms of CPU (default 1000), r2 half that; prints
 * "truth r1|r2 NANOS" of CPU. args[0] "sleep": the thread sleeps instead (args[1] ms for r1,
 * half for r2), which wall mode samples mostly by repeating the idle thread's last stack;
 * prints the wall time of each phase as the truth.
 */
public final class AnnotatedChange {
    private static final long MS = 1_000_000L;

    public static void main(String[] args) throws InterruptedException {
        boolean sleep = args.length > 0 && args[0].equals("sleep");
        long r1Ms = Cpu.millis(args, 1, 1000);
        Stackscope.mark("start");
        Stackscope.annotate(null, null, "r1", "shop", null);
        long r1 = Request.serve(sleep, r1Ms * MS);
        Stackscope.annotate(null, null, "r2", "shop", null);
        Stackscope.mark("switch");
        long r2 = Request.serve(sleep, r1Ms / 2 * MS);
        // r2 ends here: the println below is the first string concatenation, whose bootstrap
        // ran for up to 130 ms on a loaded machine and, still annotated r2 after "stop", put
        // wall samples of r2 outside switch..stop.
        Stackscope.clear();
        Stackscope.mark("stop");
        System.out.println("truth r1 " + r1);
        System.out.println("truth r2 " + r2);
    }

    static final class Request {
        /** Burns (or sleeps) budgetNs; returns the CPU (or wall) time it took. */
        static long serve(boolean sleep, long budgetNs) throws InterruptedException {
            if (sleep) {
                long start = System.nanoTime();
                Thread.sleep(budgetNs / MS);
                return System.nanoTime() - start;
            }
            return Cpu.burn(budgetNs);
        }
    }
}
