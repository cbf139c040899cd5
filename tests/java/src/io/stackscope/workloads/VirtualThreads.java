package io.stackscope.workloads;

import java.lang.reflect.Method;

/** Virtual threads for workloads built for Java 17: started through reflection, JDK 21+ only. */
final class VirtualThreads {
    private VirtualThreads() {}

    /**
     * Runs `task` on `count` virtual threads and waits for them all; on a JVM without virtual
     * threads prints "no virtual threads" and returns false.
     */
    static boolean runAll(int count, Runnable task) throws Exception {
        Method start;
        try {
            start = Thread.class.getMethod("startVirtualThread", Runnable.class);
        } catch (NoSuchMethodException e) {
            System.out.println("no virtual threads");
            return false;
        }
        Thread[] threads = new Thread[count];
        for (int i = 0; i < count; i++) {
            threads[i] = (Thread) start.invoke(null, task);
        }
        for (Thread t : threads) {
            t.join();
        }
        return true;
    }
}
