package io.stackscope.workloads;

/**
 * Deletes the first char of a 1 Mi-char StringBuilder and appends one at its end, again and
 * again: each delete shifts the whole content down (System.arraycopy, a JIT stub, called from
 * AbstractStringBuilder.shift), each append is a store. Nearly all the CPU time is the copy
 * in the stub. About 3 s of CPU (args[0] overrides, in ms).
 */
public final class StringBuilderEdit {
    public static void main(String[] args) {
        long totalNs = Cpu.millis(args, 0, 3000) * 1_000_000L;
        StringBuilder text = new StringBuilder(1 << 21);
        for (int i = 0; i < (1 << 20); i++) text.append((char) ('a' + i % 26));
        long end = Cpu.threadNs() + totalNs;
        long edits = 0;
        while (Cpu.threadNs() < end) {
            for (int i = 0; i < 100; i++) {
                text.deleteCharAt(0);
                text.append('x');
            }
            edits += 100;
        }
        Cpu.sink = edits + text.length();
    }
}
