package io.stackscope.workloads;

/**
 * Two threads Java started, each 20 calls deep before it burns the CPU
 * (tests/integration/mixed_mode_below_test.cpp): "recursive" through its run method itself,
 * which calls run again from one call, so the outermost Java frame's call is on the stack 20
 * times; "flat" through another method, its run on the stack once.
 *
 * <p>Arguments: milliseconds of CPU time for each thread.
 */
public final class RecursiveRun {
  static final int DEPTH = 20;

  static final class Recursive extends Thread {
    private final long ns;
    private int depth = DEPTH;

    Recursive(long ns) {
      super("recursive");
      this.ns = ns;
    }

    @Override
    public void run() {
      if (--depth > 0) {
        run();
      } else {
        Cpu.burn(ns);
      }
    }
  }

  static final class Flat extends Thread {
    private final long ns;

    Flat(long ns) {
      super("flat");
      this.ns = ns;
    }

    @Override
    public void run() {
      descend(DEPTH - 1, ns);
    }

    static void descend(int depth, long ns) {
      if (depth > 1) {
        descend(depth - 1, ns);
      } else {
        Cpu.burn(ns);
      }
    }
  }

  public static void main(String[] args) throws InterruptedException {
    final long ns = Long.parseLong(args[0]) * 1_000_000L;
    Thread recursive = new Recursive(ns);
    Thread flat = new Flat(ns);
    recursive.start();
    flat.start();
    recursive.join();
    flat.join();
  }
}
