package io.stackscope.workloads;

import io.stackscope.Stackscope;

/**
 * Annotation values that a careless agent would store or print wrongly, one phase each,
 * burning args[0] ms of CPU (default 300) in a method of its own:
 *
 * <pre>
 *   Hostile.huge      user = 100 000 times 'x' (stored cut at the agent's 4096-byte cap)
 *   Hostile.unicode   user "Zoë 😀 用户", session "" (empty, not unset), application "ünïcødé",
 *                     request and component null
 *   Hostile.surrogate user "bad" + a lone high surrogate + "x" (not valid UTF-16)
 *   Hostile.empty     user "" and nothing else
 *   Hostile.nulls     annotate(null, null, null, null, null): no annotation at all
 * </pre>
 */
public final class AnnotatedHostile {
    private static final long MS = 1_000_000L;

    public static void main(String[] args) {
        long ns = Cpu.millis(args, 0, 300) * MS;
        Stackscope.annotate("x".repeat(100_000), null, null, null, null);
        Hostile.huge(ns);
        Stackscope.annotate("Zoë 😀 用户", "", null, "ünïcødé", null);
        Hostile.unicode(ns);
        Stackscope.annotate("bad\uD800x", null, null, null, null);
        Hostile.surrogate(ns);
        Stackscope.annotate("", null, null, null, null);
        Hostile.empty(ns);
        Stackscope.annotate(null, null, null, null, null);
        Hostile.nulls(ns);
        System.out.println("done");
    }

    static final class Hostile {
        static void huge(long ns) { Cpu.burn(ns); }
        static void unicode(long ns) { Cpu.burn(ns); }
        static void surrogate(long ns) { Cpu.burn(ns); }
        static void empty(long ns) { Cpu.burn(ns); }
        static void nulls(long ns) { Cpu.burn(ns); }
    }
}
