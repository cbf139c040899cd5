package io.stackscope.workloads;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Virtual threads that live across recording sessions (JDK 21+). args[0] is a directory: at
 * once args[1] virtual threads named old-0, old-1, ... (default 3) and two platform threads
 * named platform-0 and platform-1 start; each works in rounds of about 2 ms (in oldSpin, or
 * platformSpin) and sleeps 1 ms between them (a virtual thread unmounts then). "ready" once
 * they all ran. When the file "burst" appears in the directory, args[2] more virtual threads
 * named new-0, new-1, ... (default 8) start, working alike in newSpin: with a scheduler
 * parallel enough, the pool then starts carriers of its own. When the file "stop" appears,
 * all end; "done". Built for Java 17: virtual threads come through reflection; on a JVM
 * without them it prints "no virtual threads" and ends.
 */
public final class VirtualSessions {
    private static volatile boolean stopping;

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int olds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int news = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        Method ofVirtual;
        try {
            ofVirtual = Thread.class.getMethod("ofVirtual");
        } catch (NoSuchMethodException e) {
            System.out.println("no virtual threads");
            return;
        }
        // Thread.Builder.unstarted(Runnable), on the builder ofVirtual() returns.
        Method unstarted = Class.forName("java.lang.Thread$Builder").getMethod("unstarted", Runnable.class);
        java.util.List<Thread> threads = new java.util.ArrayList<>();
        for (int i = 0; i < olds; i++) {
            threads.add(virtual(ofVirtual, unstarted, "old-" + i, VirtualSessions::oldWork));
        }
        for (int i = 0; i < 2; i++) {
            Thread t = new Thread(VirtualSessions::platformWork, "platform-" + i);
            t.start();
            threads.add(t);
        }
        Thread.sleep(100);
        System.out.println("ready");
        System.out.flush();
        boolean burst = false;
        while (!Files.exists(dir.resolve("stop"))) {
            if (!burst && Files.exists(dir.resolve("burst"))) {
                burst = true;
                for (int i = 0; i < news; i++) {
                    threads.add(virtual(ofVirtual, unstarted, "new-" + i, VirtualSessions::newWork));
                }
                System.out.println("burst");
                System.out.flush();
            }
            Thread.sleep(10);
        }
        stopping = true;
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("done");
    }

    private static Thread virtual(Method ofVirtual, Method unstarted, String name, Runnable work) throws Exception {
        Thread t = (Thread) unstarted.invoke(ofVirtual.invoke(null), work);
        t.setName(name);
        t.start();
        return t;
    }

    // Each kind of thread spins in a method of its own, on top of its stacks.
    static long oldSpin(long x) {
        for (int i = 0; i < 2_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    static long newSpin(long x) {
        for (int i = 0; i < 2_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    static long platformSpin(long x) {
        for (int i = 0; i < 2_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    static void oldWork() {
        rounds(VirtualSessions::oldSpin);
    }

    static void newWork() {
        rounds(VirtualSessions::newSpin);
    }

    static void platformWork() {
        rounds(VirtualSessions::platformSpin);
    }

    private static void rounds(java.util.function.LongUnaryOperator spin) {
        long x = 1;
        while (!stopping) {
            long end = System.nanoTime() + 2_000_000L;
            while (System.nanoTime() < end) {
                x = spin.applyAsLong(x);
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
        Cpu.sink = x;
    }
}
