package io.stackscope.workloads;

import java.io.File;
import java.util.List;

/**
 * A JVM that starts another JVM, as build tools and jshell do. The parent burns args[0] ms of
 * CPU in parentWork, then starts this class again as a child (same java, same class path)
 * that burns the same in childWork, and waits for it. Each prints "pid NAME PID" so a test can
 * match every recording to its JVM; "child exit N" closes the parent's output.
 */
public final class SpawnsChild {
    public static void main(String[] args) throws Exception {
        long ms = Long.parseLong(args[0]);
        if (args.length > 1 && args[1].equals("child")) {
            System.out.println("pid child " + ProcessHandle.current().pid());
            childWork(ms);
            return;
        }
        System.out.println("pid parent " + ProcessHandle.current().pid());
        System.out.flush();
        parentWork(ms);
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process child = new ProcessBuilder(List.of(java, "-Xmx64m", "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), SpawnsChild.class.getName(), args[0], "child"))
                .inheritIO()
                .start();
        System.out.println("child exit " + child.waitFor());
    }

    static void parentWork(long ms) {
        Cpu.burn(ms * 1_000_000L);
    }

    static void childWork(long ms) {
        Cpu.burn(ms * 1_000_000L);
    }
}
