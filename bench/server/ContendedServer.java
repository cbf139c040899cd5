import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.AbstractHandler;

// A Jetty server whose requests contend as a small web application's do (bench/lock_server.sh):
// each one renders a page, then looks it up and stores it in one least-recently-used cache
// guarded by a monitor, which every worker thread needs. Jetty's own thread pool parks and
// wakes its workers through java.util.concurrent locks. Prints "started" once it listens, and
// stops after the given seconds.
public class ContendedServer {
  private static final int CACHE_SIZE = 512;
  private static final Map<String, String> cache = new LinkedHashMap<>(CACHE_SIZE, 0.75f, true) {
    @Override protected boolean removeEldestEntry(Map.Entry<String, String> eldest) { return size() > CACHE_SIZE; }
  };

  static String render(String key) {
    StringBuilder page = new StringBuilder();
    for (int i = 0; i < 100; i++) page.append(Integer.toHexString(key.hashCode() * (i + 1)));
    return page.toString();
  }

  public static void main(String[] args) throws Exception {
    Server server = new Server(Integer.parseInt(args[0]));
    server.setHandler(new AbstractHandler() {
      @Override
      public void handle(String target, Request base, HttpServletRequest request, HttpServletResponse response)
          throws IOException {
        String key = target + (System.nanoTime() % 2048);
        String page = render(key);
        synchronized (cache) {
          if (cache.get(key) == null) cache.put(key, page);
        }
        response.setContentType("text/plain");
        response.getWriter().print(page.substring(0, 64));
        base.setHandled(true);
      }
    });
    server.start();
    System.out.println("started");
    Thread.sleep(Long.parseLong(args[1]) * 1000);
    server.stop();
  }
}
