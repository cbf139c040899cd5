package io.stackscope.demo;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A small order-processing pipeline to profile, about 4 s long (args[0] overrides, in ms):
 * "parser" turns generated CSV lines into orders and hands them over a queue to "hasher",
 * which fingerprints them with SHA-256; main sorts price lists meanwhile; "auditor" wakes up
 * now and then to check the backlog and sleeps the rest of the time, so it shows up in wall
 * mode only.
 */
public final class Demo {
    record Order(long id, String customer, int quantity, double price) {}

    private static final Order END = new Order(-1, "", 0, 0);

    public static void main(String[] args) throws Exception {
        long runMs = args.length > 0 ? Long.parseLong(args[0]) : 4000;
        long deadline = System.nanoTime() + runMs * 1_000_000L;
        BlockingQueue<Order> queue = new LinkedBlockingQueue<>(10_000);
        Thread parser = new Thread(() -> parseUntil(deadline, queue), "parser");
        Hasher hasher = new Hasher(queue);
        Thread hashing = new Thread(hasher, "hasher");
        Thread auditor = new Thread(() -> auditUntil(deadline, queue), "auditor");
        auditor.setDaemon(true);
        parser.start();
        hashing.start();
        auditor.start();

        long sorted = 0;
        double medians = 0;
        Random random = new Random(42);
        while (System.nanoTime() < deadline) {
            medians += medianPrice(random);
            sorted++;
        }
        parser.join();
        hashing.join();
        System.out.printf("sorted %d price lists (mean median %.2f), hashed %d orders"
                + " (fingerprint %s), largest backlog %d%n",
                sorted, medians / sorted, hasher.count, hasher.fingerprint(), maxBacklog);
    }

    // ---- parsing ----

    static void parseUntil(long deadline, BlockingQueue<Order> queue) {
        Random random = new Random(7);
        long id = 0;
        try {
            while (System.nanoTime() < deadline) {
                queue.put(parseLine(generateLine(random, id++)));
            }
            queue.put(END);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String generateLine(Random random, long id) {
        return id + ",customer-" + random.nextInt(5000) + "," + (1 + random.nextInt(20)) + ","
                + random.nextInt(100_000) / 100.0;
    }

    static Order parseLine(String line) {
        String[] fields = line.split(",");
        return new Order(Long.parseLong(fields[0]), fields[1].intern(),
                Integer.parseInt(fields[2]), Double.parseDouble(fields[3]));
    }

    // ---- hashing ----

    static final class Hasher implements Runnable {
        private final BlockingQueue<Order> queue;
        private final MessageDigest digest;
        private final byte[] last = new byte[32];
        long count;

        Hasher(BlockingQueue<Order> queue) throws NoSuchAlgorithmException {
            this.queue = queue;
            this.digest = MessageDigest.getInstance("SHA-256");
        }

        @Override
        public void run() {
            try {
                for (Order order = queue.take(); order != END; order = queue.take()) {
                    hash(order);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void hash(Order order) {
            // Chained rounds make hashing the heavier stage, as fingerprinting often is.
            byte[] data = order.toString().getBytes(StandardCharsets.UTF_8);
            for (int round = 0; round < 8; round++) {
                digest.update(last);
                digest.update(data);
                System.arraycopy(digest.digest(), 0, last, 0, last.length);
            }
            count++;
        }

        String fingerprint() {
            StringBuilder hex = new StringBuilder();
            for (int i = 0; i < 4; i++) {
                hex.append(String.format("%02x", last[i]));
            }
            return hex.toString();
        }
    }

    // ---- sorting ----

    static double medianPrice(Random random) {
        double[] prices = new double[20_000];
        for (int i = 0; i < prices.length; i++) {
            prices[i] = random.nextDouble() * 1000;
        }
        Arrays.sort(prices);
        return prices[prices.length / 2];
    }

    // ---- auditing ----

    private static volatile int maxBacklog;

    static void auditUntil(long deadline, BlockingQueue<Order> queue) {
        try {
            while (System.nanoTime() < deadline) {
                Thread.sleep(200);
                maxBacklog = Math.max(maxBacklog, queue.size());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
