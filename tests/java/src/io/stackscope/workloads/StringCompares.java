package io.stackscope.workloads;

/**
 * Compares two 16 KiB Latin-1 strings that differ only in their last character, for args[0] ms
 * of CPU (default 3000): nearly all the time is in String.compareTo's intrinsic, which C2
 * inlines into compareAll and which pushes a word on the stack while it runs (x86-64).
 */
public final class StringCompares {
    static volatile int sink;

    static int compareAll(String a, String b, int times) {
        int sum = 0;
        for (int i = 0; i < times; i++) {
            sum += a.compareTo(b);
        }
        return sum;
    }

    public static void main(String[] args) {
        long endNs = Cpu.threadNs() + Cpu.millis(args, 0, 3000) * 1_000_000L;
        String base = "a".repeat(16 * 1024 - 1);
        String a = base + "x";
        String b = base + "y";
        while (Cpu.threadNs() < endNs) {
            sink += compareAll(a, b, 1000);
        }
    }
}
