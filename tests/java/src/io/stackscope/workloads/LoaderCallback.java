package io.stackscope.workloads;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The VM calling into Java to load a class: each round makes a new BurningLoader and
 * initializes Resolver in it (Class.forName); Resolver's static initializer, run by the VM,
 * uses Target, so the VM asks the loader for it (SystemDictionary, then JavaCalls into
 * BurningLoader.loadClass), and the loader burns the CPU in burn before it defines Target.
 * Every sample of burn has the VM's functions between loadClass and Resolver's initializer.
 *
 * <p>Argument: milliseconds of the main thread's CPU time to run.
 */
public final class LoaderCallback {
  public static volatile long sink;

  public static final class Target {
    public static long touch() {
      return 1;
    }
  }

  static final class Resolver {
    static {
      sink += Target.touch();
    }
  }

  static final class BurningLoader extends ClassLoader {
    BurningLoader() {
      super(LoaderCallback.class.getClassLoader());
    }

    @Override
    public Class<?> loadClass(String name) throws ClassNotFoundException {
      if (name.equals(Target.class.getName())) burn();
      if (!name.equals(Target.class.getName()) && !name.equals(Resolver.class.getName())) return super.loadClass(name);
      // Defined here, not by the parent: each loader resolves Target anew.
      String file = name.substring(name.lastIndexOf('.') + 1) + ".class";
      try (InputStream in = LoaderCallback.class.getResourceAsStream(file)) {
        byte[] bytes = in.readAllBytes();
        return defineClass(name, bytes, 0, bytes.length);
      } catch (IOException e) {
        throw new ClassNotFoundException(name, e);
      }
    }
  }

  static void burn() {
    long x = sink;
    for (int i = 0; i < 2_000_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
    sink = x;
  }

  public static void main(String[] args) throws Exception {
    // CPU time, not wall time: a loaded machine gives the test as many samples as a quiet one.
    final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    final long end = threads.getCurrentThreadCpuTime() + Long.parseLong(args[0]) * 1_000_000L;
    while (threads.getCurrentThreadCpuTime() < end) Class.forName(Resolver.class.getName(), true, new BurningLoader());
  }
}
