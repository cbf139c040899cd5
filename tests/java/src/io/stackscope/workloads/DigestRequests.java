package io.stackscope.workloads;

import java.lang.management.ManagementFactory;
import java.security.MessageDigest;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * Two threads serve "requests" through an interface, as a web server's handler does: each
 * digests 200 blocks of 4 KiB with SHA-256, then formats the digest in hex. Where the JVM has
 * the SHA intrinsics (it prints "truth intrinsic 1") the compression runs in a stub called from
 * a method of sun.security.provider, inlined into the handler; the code right after that call
 * belongs to the formatting, another inlined method. About 3 s of CPU in all (args[0]
 * overrides, in ms), split between the threads.
 */
public final class DigestRequests {
    interface Handler {
        int handle(String path) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        boolean intrinsic = Boolean.parseBoolean(vm.getVMOption("UseSHA").getValue());
        System.out.println("truth intrinsic " + (intrinsic ? 1 : 0));
        long perThreadNs = Cpu.millis(args, 0, 3000) * 1_000_000L / 2;
        Handler handler = new Handler() {
            @Override
            public int handle(String path) throws Exception {
                MessageDigest digest = MessageDigest.getInstance("SHA-256");
                byte[] block = new byte[4096];
                for (int i = 0; i < 200; i++) digest.update(block);
                StringBuilder hex = new StringBuilder();
                for (byte b : digest.digest()) hex.append(String.format("%02x", b));
                return hex.length() + path.length();
            }
        };
        Thread[] servers = new Thread[2];
        for (int t = 0; t < servers.length; t++) {
            servers[t] = new Thread(() -> {
                long end = Cpu.threadNs() + perThreadNs;
                long served = 0;
                try {
                    while (Cpu.threadNs() < end) served += handler.handle("/");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                Cpu.sink = served;
            }, "server-" + t);
            servers[t].start();
        }
        for (Thread server : servers) server.join();
    }
}
