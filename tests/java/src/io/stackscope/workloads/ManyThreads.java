package io.stackscope.workloads;

import java.util.ArrayList;
import java.util.List;

/**
 * Starts 2000 short-lived threads named worker-N (args[0] overrides), at most 8 alive at a
 * time. Each sleeps 5 ms, so wall-mode sampling catches many of them alive, and burns 1 ms of
 * CPU, so cpu-mode timers start, fire and are torn down in threads that come and go.
 */
public final class ManyThreads {
    private static final int BATCH = 8;

    public static void main(String[] args) throws InterruptedException {
        int count = (int) Cpu.millis(args, 0, 2000);
        int finished = 0;
        for (int first = 0; first < count; first += BATCH) {
            List<Thread> batch = new ArrayList<>(BATCH);
            for (int n = first; n < Math.min(first + BATCH, count); n++) {
                Thread t = new Thread(ManyThreads::work, "worker-" + n);
                t.start();
                batch.add(t);
            }
            for (Thread t : batch) {
                t.join();
                finished++;
            }
        }
        System.out.println("threads " + finished);
    }

    private static void work() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Cpu.burn(1_000_000L);
    }
}
