package io.stackscope.workloads;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads that need a class another thread is linking wait for it on HotSpot's initialization
 * lock of that class, an int[0] (agent/class_init_lock.h). Linked's verification must load
 * Derived (is a Derived a Base?), and the class loader here takes args[0] ms (default 200) to
 * load Derived: the first thread that needs Linked links it that long, holding the lock. Once
 * it has begun, args[1] more threads (default 2) need Linked by `new Linked()` in Needer.run
 * and wait. The four classes are defined by that loader, so each run links them afresh. Then
 * a thread waits args[0] ms for a zero-length int[] of the program's own, which another holds.
 *
 * Ground truth printed: "truth waiters N" and "truth waited_ns T" (the waiters' times added up,
 * each from its `new` until it returned).
 */
public final class ClassInitWait {
    static final CountDownLatch linking = new CountDownLatch(1);
    static final int[] ownLock = new int[0];

    public static final class Needer implements Runnable {
        public Needer() {}

        @Override
        public void run() {
            new Linked();
        }
    }

    static class Base {}

    static final class Derived extends Base {}

    static final class Linked {
        static Base pick() {
            return new Derived();
        }
    }

    /** Defines the classes above itself, slowly for Derived; delegates everything else. */
    static final class SlowLoader extends ClassLoader {
        static {
            registerAsParallelCapable();  // a class's load locks its name only, not the loader
        }

        final int slowMs;

        SlowLoader(int slowMs) {
            super(ClassInitWait.class.getClassLoader());
            this.slowMs = slowMs;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            final String prefix = ClassInitWait.class.getName() + "$";
            if (!name.startsWith(prefix) || name.endsWith("SlowLoader")) return super.loadClass(name, resolve);
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) return loaded;
                if (name.endsWith("$Derived")) {
                    linking.countDown();
                    try {
                        Thread.sleep(slowMs);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    byte[] bytes = in.readAllBytes();
                    return defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }

    public static void main(String[] args) throws Exception {
        final int slowMs = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        final int waiters = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        Class<?> needer = new SlowLoader(slowMs).loadClass(Needer.class.getName());
        Runnable need = (Runnable) needer.getConstructor().newInstance();
        Thread linker = new Thread(need, "linker");
        linker.start();
        linking.await();
        AtomicLong waited = new AtomicLong();
        Thread[] threads = new Thread[waiters];
        for (int i = 0; i < waiters; ++i) {
            threads[i] = new Thread(() -> {
                long start = System.nanoTime();
                need.run();
                waited.addAndGet(System.nanoTime() - start);
            }, "needer-" + i);
            threads[i].start();
        }
        for (Thread thread : threads) thread.join();
        linker.join();
        System.out.println("truth waiters " + waiters);
        System.out.println("truth waited_ns " + waited.get());
        holdOwnLock(slowMs);
    }

    static void holdOwnLock(int holdMs) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (ownLock) {
                held.countDown();
                try {
                    Thread.sleep(holdMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "own-holder");
        holder.start();
        held.await();
        synchronized (ownLock) {
            ownLock.hashCode();
        }
        holder.join();
    }
}
