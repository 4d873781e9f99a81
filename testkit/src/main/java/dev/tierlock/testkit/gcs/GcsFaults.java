package dev.tierlock.testkit.gcs;

import dev.tierlock.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The fault controls of one {@link GcsFakeServer}: failing requests with an HTTP error, applying a
 * request and then losing its response, throttling writes to an object (a number of times, or past
 * a rate per object as GCS does), hooks that run just before a request is served, and latency.
 *
 * <p>One-shot faults are kept in the order they were added; each incoming request consumes the
 * first pending fault whose predicate matches it, so {@code failNext(..., 2, 503)} fails exactly
 * the next two matching requests. A failed request changes nothing; its error body is the one GCS
 * sends for the status ({@code rateLimitExceeded} for 429, {@code backendError} for 503, ...).
 * Thread-safe.
 */
public final class GcsFaults {

  /** What the server does with one request. */
  enum Action {
    /** Serve it normally. */
    SERVE,
    /** Answer the fault's status without applying the request. */
    FAIL,
    /** Apply the request, then close the connection without answering. */
    LOSE_RESPONSE,
    /** Run the hook on the serving thread, then serve the request normally. */
    HOOK
  }

  /** The fault chosen for one request. */
  record Decision(Action action, int status, Runnable hook) {
    static final Decision SERVE = new Decision(Action.SERVE, 0, () -> { });
  }

  private static final class Rule {
    final Predicate<GcsRequest> which;
    final Decision decision;
    int remaining;

    Rule(Predicate<GcsRequest> which, Decision decision, int remaining) {
      this.which = which;
      this.decision = decision;
      this.remaining = remaining;
    }
  }

  private record Latency(Duration perRequest, Sleeper sleeper) {}

  private final List<Rule> rules = new ArrayList<>();
  private @Nullable WriteRateLimit writeRateLimit;
  private volatile Latency latency = new Latency(Duration.ZERO, Sleeper.SYSTEM);

  GcsFaults() {}

  /**
   * Fails the next {@code times} requests, whatever they are, with {@code status}.
   *
   * @param times how many requests fail, not negative
   * @param status an HTTP error status, 400 to 599
   * @return this
   * @throws IllegalArgumentException if {@code times} is negative or {@code status} is not an error
   */
  public GcsFaults failNext(int times, int status) {
    return failNext(request -> true, times, status);
  }

  /**
   * Fails the next {@code times} requests that match {@code which} with {@code status}, without
   * applying them.
   *
   * @param which selects the requests, e.g. {@code r -> r.operation() == GcsOperation.UPLOAD}
   * @param times how many requests fail, not negative
   * @param status an HTTP error status, 400 to 599
   * @return this
   * @throws IllegalArgumentException if {@code times} is negative or {@code status} is not an error
   */
  public GcsFaults failNext(Predicate<GcsRequest> which, int times, int status) {
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("Cannot inject status " + status + ": an error status is 400 to 599");
    }
    return add(which, times, new Decision(Action.FAIL, status, Decision.SERVE.hook()));
  }

  /**
   * Applies the next {@code times} requests that match {@code which} and then closes their
   * connections without an answer, as when a response is lost in the network after the change
   * landed. The client sees an I/O error and may retry.
   *
   * @param which selects the requests
   * @param times how many responses are lost, not negative
   * @return this
   * @throws IllegalArgumentException if {@code times} is negative
   */
  public GcsFaults loseNextResponses(Predicate<GcsRequest> which, int times) {
    return add(which, times, new Decision(Action.LOSE_RESPONSE, 0, Decision.SERVE.hook()));
  }

  /**
   * Answers the next {@code times} writes (uploads, patches, deletes) to one object with 429
   * {@code rateLimitExceeded}, as GCS does past about one write per second to the same name.
   *
   * @param bucket the bucket's name
   * @param object the object's name
   * @param times how many writes are throttled, not negative
   * @return this
   * @throws IllegalArgumentException if {@code times} is negative
   */
  public GcsFaults throttleWrites(String bucket, String object, int times) {
    return failNext(request -> request.isWrite() && request.targets(bucket, object), times, 429);
  }

  /**
   * Answers 429 {@code rateLimitExceeded}, from now on, to every write (upload, patch or delete) of
   * an object that was written less than {@code interval} ago by {@code clock}: GCS's limit of about
   * one write per second to one object name, switched on. Each object of each bucket has its own
   * budget. Only writes that changed the object count (answered 2xx, or applied with their answer
   * lost): a refused write, for a failed precondition or past the rate, does not; reads are never
   * limited. Two writes that arrive together may both pass, as GCS's limit is not exact either. A
   * one-shot fault that matches a request takes precedence. Off by default; replaces an earlier
   * limit; {@link #clear()} removes it.
   *
   * @param interval the least time between two writes of one object, e.g. one second
   * @param clock the clock the interval is measured on (a test clock makes the limit deterministic)
   * @return this
   * @throws IllegalArgumentException if {@code interval} is negative or zero
   */
  public synchronized GcsFaults limitWritesPerObject(Duration interval, Clock clock) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("Cannot limit writes to one per " + interval + ": the interval is positive");
    }
    this.writeRateLimit = new WriteRateLimit(interval, clock);
    return this;
  }

  /**
   * Runs {@code hook} once, on the server's thread, just before the next request that matches
   * {@code which} is served; the request is then served normally. Use it to act as a peer at an
   * exact point, for example to replace an object between a client's metadata read and its
   * download.
   *
   * @param which selects the request
   * @param hook what runs before it is served
   * @return this
   */
  public GcsFaults beforeNext(Predicate<GcsRequest> which, Runnable hook) {
    return add(which, 1, new Decision(Action.HOOK, 0, hook));
  }

  /**
   * Makes every request wait {@code perRequest} through {@code sleeper} before it is served. A
   * test clock's sleeper makes this free; a sleeper that waits on a latch holds requests until the
   * test releases them.
   *
   * @param perRequest how long each request waits, not negative
   * @param sleeper what spends the waits
   * @return this
   * @throws IllegalArgumentException if {@code perRequest} is negative
   */
  public GcsFaults latency(Duration perRequest, Sleeper sleeper) {
    if (perRequest.isNegative()) {
      throw new IllegalArgumentException("Cannot use latency " + perRequest + ": it is negative");
    }
    this.latency = new Latency(perRequest, sleeper);
    return this;
  }

  /** Removes every pending fault, the write rate limit and the latency. */
  public synchronized void clear() {
    rules.clear();
    writeRateLimit = null;
    latency = new Latency(Duration.ZERO, Sleeper.SYSTEM);
  }

  /** {@return the number of one-shot faults not yet consumed} */
  public synchronized int pending() {
    return rules.stream().mapToInt(rule -> rule.remaining).sum();
  }

  private synchronized GcsFaults add(Predicate<GcsRequest> which, int times, Decision decision) {
    if (times < 0) {
      throw new IllegalArgumentException("Cannot inject a fault " + times + " times: the count is negative");
    }
    if (times > 0) {
      rules.add(new Rule(which, decision, times));
    }
    return this;
  }

  /** Consumes and returns the fault for one request, or {@link Decision#SERVE}. */
  synchronized Decision decide(GcsRequest request) {
    for (Iterator<Rule> it = rules.iterator(); it.hasNext(); ) {
      Rule rule = it.next();
      if (rule.which.test(request)) {
        rule.remaining--;
        if (rule.remaining == 0) {
          it.remove();
        }
        return rule.decision;
      }
    }
    if (writeRateLimit != null && !writeRateLimit.admits(request)) {
      return new Decision(Action.FAIL, 429, Decision.SERVE.hook());
    }
    return Decision.SERVE;
  }

  /** Tells the write rate limit, if any, how a request it let through was answered. */
  synchronized void served(GcsRequest request, int status) {
    if (writeRateLimit != null) {
      writeRateLimit.served(request, status);
    }
  }

  /** Waits the configured latency, if any. */
  void delay() throws InterruptedException {
    Latency current = latency;
    if (!current.perRequest().isZero()) {
      current.sleeper().sleep(current.perRequest());
    }
  }
}
