package dev.tierlock.datastore.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy on the loopback address in front of the test S3 server, that can lose a response at
 * the byte level: the request reaches the server whole and is applied, and the answer never reaches
 * the client. Real bytes on real sockets; the SDK is not touched.
 *
 * <p>Armed faults apply to the next bytes the server sends on any connection, so arm one only while
 * no other call is in flight. Every thread it starts ends on {@link #close()}. Thread-safe.
 */
final class FaultProxy implements AutoCloseable {

  /** What happens to the next answer from the server. */
  enum Fault {
    /** Forward it. */
    NONE,
    /** Cut both connections instead of forwarding it (reset, no byte of the answer sent). */
    DROP,
    /** Hold it, sending nothing, until {@link #release()} or {@link #close()}; then cut. */
    STALL
  }

  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "s3-fault-proxy");
    thread.setDaemon(true);
    return thread;
  });
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final AtomicReference<Fault> next = new AtomicReference<>(Fault.NONE);
  private final AtomicInteger struck = new AtomicInteger();
  private final CountDownLatch released = new CountDownLatch(1);
  private volatile boolean closed;

  private FaultProxy(URI target) throws IOException {
    this.target = new InetSocketAddress(target.getHost(), target.getPort());
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    threads.execute(this::acceptLoop);
  }

  /** Starts a proxy in front of {@code target} (an {@code http://host:port} URI). */
  static FaultProxy start(URI target) throws IOException {
    return new FaultProxy(target);
  }

  /** Returns the address clients use instead of the server's. */
  URI endpoint() {
    return URI.create("http://127.0.0.1:" + listener.getLocalPort());
  }

  /** Arms {@code fault} for the next answer from the server. */
  void failNextResponse(Fault fault) {
    next.set(fault);
  }

  /** Returns how many answers were lost so far. */
  int lostResponses() {
    return struck.get();
  }

  /** Ends a {@link Fault#STALL}: the held answer is then cut, never forwarded. */
  void release() {
    released.countDown();
  }

  @Override
  public void close() throws IOException {
    closed = true;
    released.countDown();
    listener.close();
    for (Socket socket : sockets) {
      socket.close();
    }
    threads.shutdownNow();
    try {
      threads.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(target.getAddress(), target.getPort());
        sockets.add(client);
        sockets.add(server);
        threads.execute(() -> pump(client, server, false));
        threads.execute(() -> pump(server, client, true));
      } catch (IOException e) {
        return; // the listener was closed
      }
    }
  }

  private void pump(Socket from, Socket to, boolean answers) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      for (int n; (n = in.read(buffer)) >= 0; ) {
        if (answers) {
          Fault fault = next.getAndSet(Fault.NONE);
          if (fault != Fault.NONE) {
            struck.incrementAndGet();
            if (fault == Fault.STALL) {
              released.await();
            }
            reset(to);
            from.close();
            return;
          }
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // a side closed: the other pump sees it too
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void reset(Socket socket) throws IOException {
    socket.setSoLinger(true, 0);
    socket.close();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
