package dev.tierlock.cli;

import dev.tierlock.DistributedLock;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The datastore as a command sees it, told as it goes: with {@code -v} one line per step of the
 * library's work that a call shows (the lease acquired and in how long, or a publish without one;
 * the lockfile fetched or not modified; a publish and its condition; where it landed; the lease
 * released), with {@code -vv} also every call and its duration. It keeps what an interrupted
 * command reports ({@link #held()}, {@link #publish()}). It changes no call: every call goes to the
 * store as it is, and its answer or exception comes back as it is, so it passes the precondition
 * self-check through. Closing it closes nothing (whoever opened the store closes it). Thread-safe.
 */
final class TracedDatastore extends ForwardingDatastore {

  /** Where the shared lockfile's publish stands in this run. */
  enum Publish {
    /** Nothing was sent. */
    NONE,
    /** A write was sent and has not answered (or its answer was lost). */
    SENT,
    /** A write landed. */
    LANDED,
    /** Every write sent was refused (a peer's change came first) or failed with nothing changed. */
    REFUSED
  }

  private final Datastore delegate;
  private final ObjectKey lockKey;
  private final ObjectKey lockfileKey;
  private final int verbosity;
  private final Consumer<String> say;
  private final LongSupplier nanos;
  private volatile @Nullable ProgressLine progress;

  private boolean held;
  private long waitingSince = -1;
  private Publish publish = Publish.NONE;
  private Optional<String> landed = Optional.empty();

  /**
   * Tells {@code delegate}'s calls for {@code namespace} on {@code say}.
   *
   * @param verbosity 0 says nothing, 1 the steps, 2 the steps and every call
   * @param nanos the time, in nanoseconds, that durations are measured on
   */
  TracedDatastore(Datastore delegate, Namespace namespace, int verbosity, Consumer<String> say, LongSupplier nanos) {
    this.delegate = delegate;
    this.lockKey = namespace.rootKey(DistributedLock.GLOBAL_LOCK_NAME);
    this.lockfileKey = namespace.key(TierPath.LOCKFILE);
    this.verbosity = verbosity;
    this.say = say;
    this.nanos = nanos;
  }

  @Override
  protected Datastore delegate() {
    return delegate;
  }

  /** Returns true: it changes no call. */
  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
  }

  /** Shows every call on {@code line} from now on (none when {@code null}). */
  void progress(@Nullable ProgressLine line) {
    this.progress = line;
  }

  /** {@return whether this run holds the global lock's lease now, as its calls show} */
  synchronized boolean held() {
    return held;
  }

  /** {@return where the shared lockfile's publish stands} */
  synchronized Publish publish() {
    return publish;
  }

  /** {@return the version the publish landed as, once it has} */
  synchronized Optional<String> landed() {
    return landed;
  }

  /** Waits up to {@code millis} for the lease to be released, and returns whether it is not held. */
  synchronized boolean awaitReleased(long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (held) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        return false;
      }
      wait(left);
    }
    return true;
  }

  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    lockTouched(key);
    ReadResult result = timed("read " + key + (condition instanceof ReadCondition.IfNoneMatch m ? " if-none-match "
        + m.version() : ""), key, () -> delegate.read(key, condition, maxBytes), TracedDatastore::outcome,
        r -> r instanceof ReadResult.Found found ? found.bytes().length : 0);
    if (key.equals(lockfileKey)) {
      step(result instanceof ReadResult.Found found ? "lockfile version " + found.object().version() + " fetched ("
          + found.bytes().length + " bytes)"
          : result instanceof ReadResult.NotModified same ? "lockfile not modified (version " + same.version() + ")"
          : "no shared lockfile yet");
    }
    return result;
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    return timed("download " + key, key, () -> delegate.openStream(key),
        s -> s.map(o -> o.object().size() + " bytes").orElse("absent"), s -> s.map(o -> o.object().size()).orElse(0L));
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    lockTouched(key);
    return timed("stat " + key, key, () -> delegate.stat(key), s -> s.map(o -> "version " + o.version())
        .orElse("absent"), s -> 0);
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    lockTouched(key);
    boolean lockfile = key.equals(lockfileKey);
    if (lockfile) {
      sending(condition);
    }
    WriteResult result;
    try {
      result = timed("write " + key + " " + condition(condition) + " (" + body.size() + " bytes)", key,
          () -> delegate.write(key, body, condition, metadata), TracedDatastore::outcome, r -> body.size());
    } catch (RuntimeException e) {
      if (lockfile) {
        step("publish had no answer (" + e.getClass().getSimpleName() + "): its outcome is judged by reading back");
      }
      throw e;
    }
    if (result instanceof WriteResult.Written written) {
      if (lockfile) {
        landed(written.version().value());
      } else if (key.equals(lockKey)) {
        acquired();
      } else if (key.value().contains(TierPath.ARCHIVES + "/")) {
        step("archive " + key.name() + " stored (" + body.size() + " bytes)");
      }
    } else if (lockfile) {
      refused();
    }
    return result;
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    DeleteResult result = timed("delete " + key + " " + condition(condition), key,
        () -> delegate.delete(key, condition), r -> r.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '),
        r -> 0);
    if (key.equals(lockKey)) {
      released(result);
    }
    return result;
  }

  @Override
  public List<StoredObject> list(String prefix) {
    return timed("list " + prefix, null, () -> delegate.list(prefix), l -> l.size() + " objects", l -> 0);
  }

  @Override
  public void close() {
    // the store's opener closes it
  }

  private synchronized void lockTouched(ObjectKey key) {
    if (key.equals(lockKey) && !held && waitingSince < 0) {
      waitingSince = nanos.getAsLong();
    }
  }

  private synchronized void acquired() {
    if (!held) {
      held = true;
      long millis = waitingSince < 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(nanos.getAsLong() - waitingSince);
      step("lease acquired in " + millis + " ms");
    }
  }

  /** The lock's delete answered {@code result}: released, or (absent, another version) no longer this run's. */
  private synchronized void released(DeleteResult result) {
    if (held) {
      held = false;
      waitingSince = -1;
      step(result == DeleteResult.DELETED ? "lease released" : "lease no longer held: another holder has the lock");
      notifyAll();
    }
  }

  private synchronized void sending(WriteCondition condition) {
    if (!held) {
      step("no lease (optimistic)");
    }
    if (publish != Publish.LANDED) {
      publish = Publish.SENT;
    }
    step("publish " + condition(condition));
  }

  private synchronized void landed(String version) {
    publish = Publish.LANDED;
    landed = Optional.of(version);
    step("landed as version " + version);
  }

  private synchronized void refused() {
    if (publish == Publish.SENT) {
      publish = Publish.REFUSED;
    }
    step("publish refused: a peer's change landed first");
  }

  private static String condition(WriteCondition condition) {
    if (condition instanceof WriteCondition.MustMatch m) {
      return "conditional on version " + m.version();
    }
    return condition instanceof WriteCondition.MustNotExist ? "conditional on no object there yet" : "unconditional";
  }

  private static String outcome(ReadResult result) {
    if (result instanceof ReadResult.Found found) {
      return "version " + found.object().version() + ", " + found.bytes().length + " bytes";
    }
    return result instanceof ReadResult.NotModified ? "not modified" : "absent";
  }

  private static String outcome(WriteResult result) {
    return result instanceof WriteResult.Written w ? "version " + w.version() : "precondition failed";
  }

  /** Says a step of the library's work, with {@code -v}. */
  private void step(String line) {
    if (verbosity >= 1) {
      say.accept(line);
    }
  }

  /**
   * Runs one call on {@code key}: with {@code -vv} says it, its outcome (or failure) and its
   * duration; on a progress line, counts it and the bytes it moved.
   */
  private <T> T timed(String call, @Nullable ObjectKey key, Supplier<T> action, Function<T, String> outcome,
      ToLongFunction<T> moved) {
    ProgressLine line = progress;
    if (verbosity < 2) {
      T result = action.get();
      if (line != null && key != null) {
        line.call(key, moved.applyAsLong(result));
      }
      return result;
    }
    long start = nanos.getAsLong();
    try {
      T result = action.get();
      say.accept("datastore " + call + ": " + outcome.apply(result) + " (" + since(start) + " ms)");
      return result;
    } catch (RuntimeException e) {
      say.accept("datastore " + call + ": failed, " + e.getClass().getSimpleName() + " (" + since(start) + " ms)");
      throw e;
    }
  }

  private long since(long start) {
    return TimeUnit.NANOSECONDS.toMillis(nanos.getAsLong() - start);
  }
}
