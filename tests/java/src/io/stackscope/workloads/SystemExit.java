package io.stackscope.workloads;

/**
 * Ends a profiled JVM the two abrupt ways a recording must survive:
 * "exit": a thread named "exiter" burns 1 s of CPU then calls System.exit(3) while main is
 * still burning; "throw": main burns 1 s then dies of an uncaught exception (exit code 1).
 */
public final class SystemExit {
    public static void main(String[] args) {
        switch (args.length > 0 ? args[0] : "") {
            case "exit" -> {
                new Thread(() -> {
                    Cpu.burn(1_000_000_000L);
                    System.exit(3);
                }, "exiter").start();
                while (true) {
                    Cpu.burn(10_000_000L);
                }
            }
            case "throw" -> {
                Cpu.burn(1_000_000_000L);
                throw new IllegalStateException("deliberate uncaught exception");
            }
            default -> {
                System.err.println("usage: SystemExit exit|throw");
                System.exit(64);
            }
        }
    }
}
