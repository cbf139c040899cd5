package io.stackscope.bench;

/**
 * For bench/top_refresh.sh: main sleeps at a recursion depth that changes every 100 ms (0 to
 * 2999), so a wall recording gets new stacks, and map data, for the first five minutes, at
 * nearly no CPU. Runs until killed.
 */
public final class GrowingStacks {
    static void at(int depth) throws InterruptedException {
        if (depth > 0) {
            at(depth - 1);
            return;
        }
        Thread.sleep(100);
    }

    public static void main(String[] args) throws InterruptedException {
        for (int i = 0; ; i++) at(i % 3000);
    }
}
