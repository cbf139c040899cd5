package io.stackscope.workloads;

/**
 * main recurses 200 deep (args[1] overrides) through descend and burns 1 ms of CPU at the leaf,
 * again and again for about 2 s of CPU (args[0] overrides, in ms). Nearly every sample has
 * descend on its stack 200 times: its total must count each sample once, so it is close to
 * 100 % of the samples and never above.
 */
public final class Recursion {
    public static void main(String[] args) {
        long totalMs = Cpu.millis(args, 0, 2000);
        int depth = (int) Cpu.millis(args, 1, 200);
        long end = Cpu.threadNs() + totalMs * 1_000_000L;
        long x = 0;
        while (Cpu.threadNs() < end) {
            x += descend(depth);
        }
        Cpu.sink = x;
    }

    static long descend(int depth) {
        if (depth == 0) {
            return leaf();
        }
        // Work after the call keeps it from being a tail call in any compiler.
        return descend(depth - 1) + depth;
    }

    static long leaf() {
        Cpu.burn(1_000_000L);
        return Cpu.sink;
    }
}
