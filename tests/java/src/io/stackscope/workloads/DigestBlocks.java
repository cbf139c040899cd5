package io.stackscope.workloads;

import java.lang.management.ManagementFactory;
import java.security.MessageDigest;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * SHA-256 over 64 KiB blocks. Where the JVM uses the SHA intrinsics (UseSHA; it prints "truth
 * intrinsic 1"), the compression runs in a generated stub that compiled code calls in place of
 * DigestBase.implCompressMultiBlock: nearly all the CPU time is in that stub. About 3 s of
 * CPU (args[0] overrides, in ms).
 */
public final class DigestBlocks {
    public static void main(String[] args) throws Exception {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        boolean intrinsic = Boolean.parseBoolean(vm.getVMOption("UseSHA").getValue());
        System.out.println("truth intrinsic " + (intrinsic ? 1 : 0));
        long totalNs = Cpu.millis(args, 0, 3000) * 1_000_000L;
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        byte[] block = new byte[64 * 1024];
        long end = Cpu.threadNs() + totalNs;
        while (Cpu.threadNs() < end) digest.update(block);
        Cpu.sink = digest.digest()[0];
    }
}
