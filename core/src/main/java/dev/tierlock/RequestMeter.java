package dev.tierlock;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Counts the datastore requests, and the body bytes they downloaded, that one thread makes while
 * a piece of work runs ({@link #measure}): what a convergence pass reports it spent. The checkout's
 * guarded datastore tells the meter of each call; a call made while no measurement runs on its
 * thread is not counted. A stream opened during a measurement counts the bytes read from it into
 * that measurement, on whatever thread reads them ({@link Tierlock#measure}). Thread-safe.
 */
final class RequestMeter {

  private static final ThreadLocal<@Nullable Tally> CURRENT = new ThreadLocal<>();

  private RequestMeter() {}

  /** The requests and body bytes of one measurement; thread-safe. */
  static final class Tally {
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();

    /** {@return the requests counted so far} */
    long requests() {
      return requests.get();
    }

    /** {@return the body bytes counted so far} */
    long bytes() {
      return bytes.get();
    }
  }

  /**
   * Runs {@code work} counting into {@code tally} the requests this thread makes meanwhile; a
   * measurement already running on this thread is suspended until it returns.
   *
   * @param tally where to count
   * @param work the work
   * @param <T> what it returns
   * @return what {@code work} returned
   */
  static <T> T measure(Tally tally, Supplier<T> work) {
    Tally outer = CURRENT.get();
    CURRENT.set(tally);
    try {
      return work.get();
    } finally {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    }
  }

  /**
   * Counts one request, with {@code bodyBytes} downloaded, into the measurement running on this thread.
   *
   * @param bodyBytes the bytes of the body it returned, 0 for none
   */
  static void request(long bodyBytes) {
    Tally tally = CURRENT.get();
    if (tally != null) {
      tally.requests.incrementAndGet();
      tally.bytes.addAndGet(bodyBytes);
    }
  }

  /**
   * Counts one request that opened {@code stream}, and returns the stream, counting the bytes read
   * from it into the measurement running on this thread now.
   *
   * @param stream the body
   * @return the stream to read instead ({@code stream} itself when nothing is measured)
   */
  static InputStream requestStream(InputStream stream) {
    Tally tally = CURRENT.get();
    if (tally == null) {
      return stream;
    }
    tally.requests.incrementAndGet();
    return new FilterInputStream(stream) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          tally.bytes.incrementAndGet();
        }
        return b;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n > 0) {
          tally.bytes.addAndGet(n);
        }
        return n;
      }

      @Override
      public long skip(long n) throws IOException {
        return super.skip(n);
      }
    };
  }
}
