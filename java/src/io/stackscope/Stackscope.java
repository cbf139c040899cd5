package io.stackscope;

/**
 * The application's side of stackscope: snapshot markers and thread annotations.
 *
 * <p>Every method is a cheap no-op when the stackscope agent is not loaded: the application
 * needs the agent neither to compile nor to run. When the agent is loaded it binds the
 * native methods of this class itself and sets {@code bound}; nothing here loads a library.
 *
 * <p>What the agent stores: text as UTF-8, each marker name and annotation value cut at 4096
 * bytes (at a character boundary; an unpaired surrogate becomes U+FFFD). Each distinct
 * combination of the five annotation values is stored once; beyond 100 000 distinct
 * combinations (or 64 MB of their text) new ones are recorded as the single annotation whose
 * values all read "(overflow)", and the agent says how many at the end. Only changes cost
 * more than a comparison: annotating a thread with the annotation it already has does not
 * reach the agent. The agent remembers each thread's annotation, so a later recording of the
 * same JVM (a start over its control server, another attach) knows it without a new call.
 *
 * <p>Annotations belong to platform threads. A virtual thread's annotation is applied to the
 * carrier thread it runs on at the time of the call and stays with that carrier until the
 * next change, whichever virtual thread the carrier runs meanwhile.
 */
public final class Stackscope {
    /** Set to true by the agent once it has bound the natives. Never set by Java code. */
    private static volatile boolean bound;

    /** The current thread's annotation, kept here so that scopes can restore it. */
    private static final ThreadLocal<Annotation> CURRENT = ThreadLocal.withInitial(() -> Annotation.EMPTY);

    private static final Scope NO_OP_SCOPE = () -> { };

    private Stackscope() { }

    /** True when the agent is loaded and recording what this class reports. */
    public static boolean isActive() { return bound; }

    /**
     * Writes a named snapshot marker at this instant. A null or empty name is ignored, with
     * or without the agent: profiling must never make the application fail.
     */
    public static void mark(String name) {
        if (bound && Names.valid(name)) mark0(name);
    }

    /** Opens the named interval {@code name}; {@link #end(String)} closes it. */
    public static void begin(String name) {
        if (bound && Names.valid(name)) begin0(name);
    }

    /** Closes the named interval opened by {@link #begin(String)}. */
    public static void end(String name) {
        if (bound && Names.valid(name)) end0(name);
    }

    /** Annotates the current thread; any field may be null. Replaces the whole annotation. */
    public static void annotate(String user, String session, String request, String application, String component) {
        if (bound) set(Annotation.of(user, session, request, application, component));
    }

    /** Annotates the current thread with {@code annotation}. */
    public static void annotate(Annotation annotation) {
        if (bound) set(annotation == null ? Annotation.EMPTY : annotation);
    }

    /** The current thread's annotation ({@link Annotation#EMPTY} without the agent). */
    public static Annotation annotation() {
        return bound ? CURRENT.get() : Annotation.EMPTY;
    }

    /** Removes the current thread's annotation. */
    public static void clear() {
        if (bound) set(Annotation.EMPTY);
    }

    /**
     * Annotates the current thread until the returned scope is closed, then restores the
     * annotation it had before. Use with try-with-resources; scopes nest.
     */
    public static Scope enter(Annotation annotation) {
        if (!bound) return NO_OP_SCOPE;
        final Annotation previous = CURRENT.get();
        set(annotation == null ? Annotation.EMPTY : annotation);
        return () -> set(previous);
    }

    /** {@link #enter(Annotation)} with the five fields given directly. */
    public static Scope enter(String user, String session, String request, String application, String component) {
        return enter(Annotation.of(user, session, request, application, component));
    }

    /** A thread annotation in force until closed. */
    @FunctionalInterface
    public interface Scope extends AutoCloseable {
        @Override
        void close();
    }

    private static void set(Annotation annotation) {
        // The common case in request handling is no change at all: spare it the native call.
        if (annotation.equals(CURRENT.get())) return;
        CURRENT.set(annotation);
        annotate0(annotation.user(), annotation.session(), annotation.request(), annotation.application(),
                annotation.component());
    }

    private static final class Names {
        static boolean valid(String name) {
            return name != null && !name.isEmpty();
        }
    }

    private static native void mark0(String name);
    private static native void begin0(String name);
    private static native void end0(String name);
    private static native void annotate0(String user, String session, String request, String application, String component);
}
