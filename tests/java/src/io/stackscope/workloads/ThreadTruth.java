package io.stackscope.workloads;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One thread in each state wall mode tells apart, for about 2 s of wall time (args[0], in
 * ms): "parked" in LockSupport.park, "waiter" in Object.wait(), "sleeper" in Thread.sleep,
 * "spinner" burning CPU, and "before-rename", asleep, which main renames "after-rename"
 * half-way. Then main returns while "lingerer" sleeps args[1] ms (default 1000) more: the
 * launcher's thread waits in DestroyJavaVM meanwhile, with no Java frame.
 *
 * Ground truth printed: "nid NAME TID" for the JVM's own threads, as the JDK's jcmd
 * Thread.print reports their OS thread ids, and "truth linger NANOS".
 */
public final class ThreadTruth {
    private static final Object MONITOR = new Object();
    private static volatile boolean done;

    public static void main(String[] args) throws Exception {
        long runMs = Cpu.millis(args, 0, 2000);
        long lingerMs = Cpu.millis(args, 1, 1000);
        printNativeIds("Reference Handler", "Finalizer", "Signal Dispatcher");

        Thread parked = new Thread(ThreadTruth::park, "parked");
        Thread waiter = new Thread(ThreadTruth::waitOnMonitor, "waiter");
        Thread sleeper = new Thread(ThreadTruth::sleepUntilDone, "sleeper");
        Thread spinner = new Thread(ThreadTruth::spin, "spinner");
        Thread renamed = new Thread(ThreadTruth::sleepUntilDone, "before-rename");
        Thread[] all = {parked, waiter, sleeper, spinner, renamed};
        for (Thread t : all) {
            t.start();
        }
        awaitState(parked, Thread.State.WAITING);
        awaitState(waiter, Thread.State.WAITING);
        awaitState(sleeper, Thread.State.TIMED_WAITING);
        awaitState(renamed, Thread.State.TIMED_WAITING);
        Thread.sleep(runMs / 2);
        renamed.setName("after-rename");
        Thread.sleep(runMs - runMs / 2);

        done = true;
        LockSupport.unpark(parked);
        synchronized (MONITOR) {
            MONITOR.notifyAll();
        }
        sleeper.interrupt();
        renamed.interrupt();
        for (Thread t : all) {
            t.join();
        }
        Thread lingerer = new Thread(() -> {
            long start = System.nanoTime();
            sleepQuietly(lingerMs);
            System.out.println("truth linger " + (System.nanoTime() - start));
        }, "lingerer");
        lingerer.start();
    }

    /** Runs the JDK's jcmd on this JVM and prints the OS thread id it gives each named thread. */
    private static void printNativeIds(String... names) throws Exception {
        String jcmd = System.getProperty("java.home") + "/bin/jcmd";
        Process p = new ProcessBuilder(jcmd, Long.toString(ProcessHandle.current().pid()), "Thread.print")
                .redirectErrorStream(true).start();
        // "NAME" #2 daemon prio=10 ... nid=0x3a2f waiting ... (hex up to JDK 18, decimal later)
        Pattern line = Pattern.compile("^\"(.*)\" .* nid=(0x[0-9a-f]+|[0-9]+) ");
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
            for (String s; (s = in.readLine()) != null; ) {
                Matcher m = line.matcher(s);
                if (!m.find()) {
                    continue;
                }
                for (String name : names) {
                    if (name.equals(m.group(1))) {
                        String nid = m.group(2);
                        long tid = nid.startsWith("0x") ? Long.parseLong(nid.substring(2), 16) : Long.parseLong(nid);
                        System.out.println("nid " + name + " " + tid);
                    }
                }
            }
        }
        p.waitFor();
    }

    private static void awaitState(Thread t, Thread.State state) throws InterruptedException {
        while (t.getState() != state) {
            Thread.sleep(1);
        }
    }

    private static void park() {
        while (!done) {
            LockSupport.park();
        }
    }

    private static void waitOnMonitor() {
        synchronized (MONITOR) {
            while (!done) {
                try {
                    MONITOR.wait();
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private static void sleepUntilDone() {
        while (!done) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void spin() {
        while (!done) {
            Cpu.burn(1_000_000L);
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
