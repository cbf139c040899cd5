package io.stackscope;

import java.util.Objects;

/**
 * Who and what a thread works for: user, session, request, application, component. Immutable;
 * any field may be null (unset). Build one with the {@code with…} methods and apply it with
 * {@link Stackscope#annotate(Annotation)} or {@link Stackscope#enter(Annotation)}.
 */
public final class Annotation {
    /** The annotation with every field unset. */
    public static final Annotation EMPTY = new Annotation(null, null, null, null, null);

    private final String user;
    private final String session;
    private final String request;
    private final String application;
    private final String component;

    private Annotation(String user, String session, String request, String application, String component) {
        this.user = user;
        this.session = session;
        this.request = request;
        this.application = application;
        this.component = component;
    }

    /** An annotation with the given fields; any may be null. */
    public static Annotation of(String user, String session, String request, String application, String component) {
        return new Annotation(user, session, request, application, component);
    }

    public String user() { return user; }
    public String session() { return session; }
    public String request() { return request; }
    public String application() { return application; }
    public String component() { return component; }

    public Annotation withUser(String value) { return new Annotation(value, session, request, application, component); }
    public Annotation withSession(String value) { return new Annotation(user, value, request, application, component); }
    public Annotation withRequest(String value) { return new Annotation(user, session, value, application, component); }
    public Annotation withApplication(String value) { return new Annotation(user, session, request, value, component); }
    public Annotation withComponent(String value) { return new Annotation(user, session, request, application, value); }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof Annotation)) return false;
        Annotation o = (Annotation) other;
        return Objects.equals(user, o.user) && Objects.equals(session, o.session) && Objects.equals(request, o.request)
                && Objects.equals(application, o.application) && Objects.equals(component, o.component);
    }

    @Override
    public int hashCode() { return Objects.hash(user, session, request, application, component); }

    @Override
    public String toString() {
        return "Annotation[user=" + user + ", session=" + session + ", request=" + request + ", application="
                + application + ", component=" + component + "]";
    }
}
