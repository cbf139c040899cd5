package io.stackscope.workloads;

/**
 * main burns about 2 s of CPU (args[0] overrides, in ms) while three threads idle the whole
 * time, each in one JVM thread state: "sleeper" in Thread.sleep, "blocked" entering a monitor
 * that main holds, "waiter" in Object.wait(). They use no CPU, so cpu mode must not show them;
 * wall mode must show each with its state, and every other live thread too: main prints
 * "thread NAME" for each thread alive while it burns, the JVM's own among them.
 */
public final class Sleeper {
    private static final Object MONITOR = new Object();
    private static final Object SIGNAL = new Object();
    private static boolean released;

    public static void main(String[] args) throws InterruptedException {
        long burnMs = Cpu.millis(args, 0, 2000);
        Thread sleeper = new Thread(Sleeper::sleepUntilInterrupted, "sleeper");
        Thread waiter = new Thread(Sleeper::waitUntilReleased, "waiter");
        Thread blocked = new Thread(Sleeper::enterMonitor, "blocked");
        synchronized (MONITOR) {
            sleeper.start();
            waiter.start();
            blocked.start();
            // Burn only once every thread is idle, so every wall sample of it shows its state.
            awaitState(sleeper, Thread.State.TIMED_WAITING);
            awaitState(waiter, Thread.State.WAITING);
            awaitState(blocked, Thread.State.BLOCKED);
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                System.out.println("thread " + t.getName());
            }
            Cpu.burn(burnMs * 1_000_000L);
        }
        sleeper.interrupt();
        synchronized (SIGNAL) {
            released = true;
            SIGNAL.notifyAll();
        }
        sleeper.join();
        waiter.join();
        blocked.join();
    }

    private static void awaitState(Thread t, Thread.State state) throws InterruptedException {
        while (t.getState() != state) {
            Thread.sleep(1);
        }
    }

    private static void sleepUntilInterrupted() {
        try {
            while (true) {
                Thread.sleep(60_000);
            }
        } catch (InterruptedException expected) {
            // main is done: end the thread.
        }
    }

    private static void waitUntilReleased() {
        synchronized (SIGNAL) {
            while (!released) {
                try {
                    SIGNAL.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static void enterMonitor() {
        synchronized (MONITOR) {
            Cpu.sink++;
        }
    }
}
