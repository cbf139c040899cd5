package io.stackscope.workloads;

import java.io.FileInputStream;
import java.io.IOException;

/**
 * Reads /dev/zero in 1 MiB blocks for args[0] ms of CPU (default 1500): about half the time is
 * the kernel filling the buffer (read_zero, under the read system call), the rest copying it
 * into the Java array. Prints "truth reads NANOS" (the thread's CPU time in the loop).
 */
public final class KernelReads {
    public static void main(String[] args) throws IOException {
        long budgetNs = Cpu.millis(args, 0, 1500) * 1_000_000L;
        byte[] buffer = new byte[1 << 20];
        long start = Cpu.threadNs();
        long read = 0;
        try (FileInputStream zero = new FileInputStream("/dev/zero")) {
            while (Cpu.threadNs() - start < budgetNs) read += zero.read(buffer);
        }
        Cpu.sink = read;
        System.out.println("truth reads " + (Cpu.threadNs() - start));
    }
}
