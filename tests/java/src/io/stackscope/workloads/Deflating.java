package io.stackscope.workloads;

import java.util.SplittableRandom;
import java.util.zip.Deflater;

/**
 * Compresses 1 MiB blocks of half-random bytes for args[0] ms of CPU (default 2000): the time
 * is in zlib's C code, called through the JNI method Deflater.deflateBytesBytes, so a profile
 * with native frames shows zlib's functions above that Java frame. Prints "truth deflate NANOS"
 * (the thread's CPU time in the loop).
 */
public final class Deflating {
    public static void main(String[] args) {
        long budgetNs = Cpu.millis(args, 0, 2000) * 1_000_000L;
        byte[] input = new byte[1 << 20];
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < input.length; i++) input[i] = (byte) (random.nextInt(16) + (i % 64 < 32 ? 'a' : '0'));
        byte[] output = new byte[input.length + 1024];
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
        long start = Cpu.threadNs();
        long end = start + budgetNs;
        long written = 0;
        while (Cpu.threadNs() < end) {
            deflater.reset();
            deflater.setInput(input);
            deflater.finish();
            while (!deflater.finished()) written += deflater.deflate(output);
        }
        Cpu.sink = written;
        System.out.println("truth deflate " + (Cpu.threadNs() - start));
    }
}
