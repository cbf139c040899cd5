package io.stackscope.workloads;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Many compiled methods entered again after every collection, for args[0] ms (default 2000):
 * the main thread warms varied() up, then forces a full collection and calls varied() a few
 * times, over and over. varied() runs through the JDK's collections, streams, formatting and
 * regular expressions: a few hundred compiled methods. From JDK 20, a collection arms every
 * compiled method's entry barrier, and the first call of each after it goes through the
 * barrier's stub into the VM (java_stack_walk.cpp's walkFromEntryBarrier), a third of the main
 * thread's CPU here. The main thread does nothing else.
 *
 * Ground truth printed: "truth collections N", the collections forced.
 */
public final class EntryBarriers {
    static long sink;

    static void varied(int i) {
        Map<String, Integer> counts = new HashMap<>();
        for (int k = 0; k < 50; k++) counts.merge("k" + (k % 7), k, Integer::sum);
        sink += counts.values().stream().mapToInt(Integer::intValue).sum();
        sink += String.format("%d-%s", i, "x").length();
        sink += Pattern.compile("a+b").matcher("aaab" + i).matches() ? 1 : 0;
        List<Integer> numbers = IntStream.range(0, 100).boxed().collect(Collectors.toList());
        Collections.sort(numbers, Comparator.reverseOrder());
        sink += numbers.get(0) + new TreeMap<>(counts).firstKey().length() + new ArrayList<>(numbers).size();
        sink += new StringBuilder().append(i).reverse().toString().hashCode() + Long.toHexString(i).length();
    }

    public static void main(String[] args) {
        final long millis = args.length > 0 ? Long.parseLong(args[0]) : 2000;
        for (int i = 0; i < 20000; i++) varied(i);
        final long end = System.nanoTime() + millis * 1_000_000L;
        long collections = 0;
        while (System.nanoTime() < end) {
            System.gc();
            collections++;
            for (int i = 0; i < 20; i++) varied(i);
        }
        System.out.println("sink " + sink);
        System.out.println("truth collections " + collections);
    }
}
