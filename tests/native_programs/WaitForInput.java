/** A JVM for the native room's tests to look at: prints "ready", then waits for its input to close. */
public final class WaitForInput {
    public static void main(String[] args) throws Exception {
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) {
        }
    }
}
