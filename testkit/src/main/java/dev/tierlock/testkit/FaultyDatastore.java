package dev.tierlock.testkit;

import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.TierlockException;
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
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Datastore} decorator that injects faults and logs every call; it wraps any datastore
 * (the fake remote, a filesystem, S3, GCS). The faults are set through {@link #faults()} (see
 * {@link Faults} for the order in which they apply, hooks before and after a call included), the
 * calls are read back from {@link #log()}.
 * Every injected failure is an exception the {@link Datastore} contract allows. Only {@link
 * Datastore} is exposed; the wrapped store itself is reached through {@link #delegate()}. What the store is and
 * holds ({@link #identity()}, {@link #describe()}, {@link #maxMetadataBytes()}) is forwarded as it
 * is, never logged or faulted: those are not calls to the store.
 *
 * <p>It passes write preconditions through unchanged ({@link #passesPreconditionsThrough()}), and so
 * shares the precondition self-check's verdict of the store it wraps, unless {@link
 * Faults#nonAtomicPreconditions} is set: then it is a store of its own to Tierlock.
 *
 * <p>Thread-safe when the wrapped store is; hooks run on the calling thread, outside any lock.
 */
public final class FaultyDatastore extends ForwardingDatastore {

  private final Datastore delegate;
  private final Faults faults = new Faults();
  private final OperationLog log = new OperationLog();

  private FaultyDatastore(Datastore delegate) {
    this.delegate = delegate;
  }

  /**
   * Wraps {@code delegate}, with no fault pending and an empty log; closing the wrapper closes it.
   *
   * @param delegate the datastore the faults are injected in front of
   * @return the wrapper
   */
  public static FaultyDatastore wrap(Datastore delegate) {
    return new FaultyDatastore(delegate);
  }

  /** {@return the fault controls} */
  public Faults faults() {
    return faults;
  }

  /** {@return the log of every call made through this wrapper} */
  public OperationLog log() {
    return log;
  }

  /** Returns the wrapped datastore (calls made on it directly are neither logged nor faulted). */
  @Override
  public Datastore delegate() {
    return delegate;
  }

  /**
   * Returns true unless {@link Faults#nonAtomicPreconditions} is set: every other fault refuses a
   * call before it is sent, or answers one that was sent as outcome unknown, as the contract allows.
   */
  @Override
  protected boolean passesPreconditionsThrough() {
    return faults.raceWindows().isEmpty();
  }

  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    return call(DatastoreOperation.READ, key, key.value(), describe(condition), () -> {
      faults.raceWindows().ifPresent(windows -> windows.read(key));
      ReadResult result = delegate.read(key, condition, maxBytes);
      if (result instanceof ReadResult.Found found) {
        if (found.bytes().length > 0 && faults.takeCorruption(key)) {
          byte[] bytes = found.bytes().clone();
          bytes[bytes.length - 1] ^= (byte) 0xff;
          return new Outcome<>(new ReadResult.Found(found.object(), bytes), "FAULT:CORRUPTED", null, null);
        }
        return new Outcome<>(result, "FOUND", null, null);
      }
      return new Outcome<>(result, result instanceof ReadResult.NotModified ? "NOT_MODIFIED" : "ABSENT", null, null);
    });
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    return call(DatastoreOperation.OPEN_STREAM, key, key.value(), "always", () -> {
      faults.raceWindows().ifPresent(windows -> windows.read(key));
      Optional<ObjectStream> opened = delegate.openStream(key);
      if (opened.isEmpty()) {
        return new Outcome<>(opened, "ABSENT", null, null);
      }
      ObjectStream stream = opened.get();
      long size = stream.object().size();
      long breakAfter = faults.takeStreamBreak(key);
      long corruptAt = size > 0 && faults.takeCorruption(key) ? size - 1 : -1;
      if (breakAfter < 0 && corruptAt < 0) {
        return new Outcome<>(opened, "FOUND", null, stream);
      }
      ObjectStream altered = new AlteredObjectStream(stream, breakAfter, corruptAt);
      return new Outcome<>(
          Optional.of(altered), breakAfter >= 0 ? "FAULT:BROKEN_STREAM" : "FAULT:CORRUPTED", null, altered);
    });
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    return call(DatastoreOperation.STAT, key, key.value(), "always", () -> {
      faults.raceWindows().ifPresent(windows -> windows.read(key));
      Optional<StoredObject> result = delegate.stat(key);
      return new Outcome<>(result, result.isPresent() ? "FOUND" : "ABSENT", null, null);
    });
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    return call(DatastoreOperation.WRITE, key, key.value(), describe(condition), () -> {
      Optional<RaceWindows> windows = faults.raceWindows();
      RaceWindows.Outcome<WriteResult> outcome = windows.isEmpty()
          ? new RaceWindows.Outcome<>(delegate.write(key, body, condition, metadata), false)
          : windows.get().write(key, condition, () -> delegate.write(key, body, condition, metadata),
              () -> delegate.write(key, body, WriteCondition.none(), metadata));
      WriteResult result = outcome.answer();
      boolean written = result instanceof WriteResult.Written;
      String text = outcome.leaked() ? "FAULT:NON_ATOMIC" : written ? "WRITTEN" : "PRECONDITION_FAILED";
      return new Outcome<>(result, text, written ? key : null, null);
    });
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    return call(DatastoreOperation.DELETE, key, key.value(), describe(condition), () -> {
      Optional<RaceWindows> windows = faults.raceWindows();
      RaceWindows.Outcome<DeleteResult> outcome = windows.isEmpty()
          ? new RaceWindows.Outcome<>(delegate.delete(key, condition), false)
          : windows.get().delete(key, condition, () -> delegate.delete(key, condition),
              () -> delegate.delete(key, WriteCondition.none()));
      return new Outcome<>(outcome.answer(), outcome.leaked() ? "FAULT:NON_ATOMIC" : outcome.answer().name(), null, null);
    });
  }

  @Override
  public List<StoredObject> list(String prefix) {
    return call(DatastoreOperation.LIST, null, prefix, "always", () -> {
      List<StoredObject> result = delegate.list(prefix);
      return new Outcome<>(result, "LISTED:" + result.size(), null, null);
    });
  }

  /** Closes the wrapped datastore. */
  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return "FaultyDatastore[" + delegate.describe() + "]";
  }

  private <T> T call(
      DatastoreOperation operation, @Nullable ObjectKey key, String target, String condition,
      Supplier<Outcome<T>> action) {
    if (faults.isOffline()) {
      log.append(new LoggedOperation(operation, target, condition, "FAULT:OFFLINE"), null);
      throw new DatastoreUnavailableException(
          failure(operation, target, "the datastore is offline (injected OFFLINE)"), null);
    }
    Optional<Fault> fault;
    try {
      fault = prepare(operation, target, key);
    } catch (RuntimeException e) {
      log.append(new LoggedOperation(operation, target, condition, errorOutcome(e)), null);
      throw e;
    }
    if (fault.isPresent() && fault.get() != Fault.LOSE_RESPONSE) {
      log.append(new LoggedOperation(operation, target, condition, "FAULT:" + fault.get()), null);
      throw injected(operation, target, fault.get());
    }
    Outcome<T> outcome;
    try {
      outcome = action.get();
    } catch (RuntimeException e) {
      log.append(new LoggedOperation(operation, target, condition, errorOutcome(e)), null);
      runAfterHook(operation, key, e);
      throw e;
    }
    if (fault.isPresent()) {
      discard(outcome);
      log.append(new LoggedOperation(operation, target, condition, "FAULT:" + Fault.LOSE_RESPONSE), outcome.landed);
      TierlockException lost = injected(operation, target, Fault.LOSE_RESPONSE);
      runAfterHook(operation, key, lost);
      throw lost;
    }
    log.append(new LoggedOperation(operation, target, condition, outcome.text), outcome.landed);
    runAfterHook(operation, key, null);
    return outcome.value;
  }

  /** Runs the {@link Faults#afterNext} hook of this call, if any; what it throws replaces the answer. */
  private void runAfterHook(DatastoreOperation operation, @Nullable ObjectKey key, @Nullable RuntimeException answer) {
    Optional<Runnable> hook = faults.takeAfterHook(operation, key);
    if (hook.isEmpty()) {
      return;
    }
    try {
      hook.get().run();
    } catch (RuntimeException | Error e) {
      if (answer != null) {
        e.addSuppressed(answer);
      }
      throw e;
    }
  }

  /** Applies latency and hooks, then returns the fault that decides this call, if any. */
  private Optional<Fault> prepare(DatastoreOperation operation, String target, @Nullable ObjectKey key) {
    Optional<Faults.Latency> latency = faults.currentLatency();
    if (latency.isPresent()) {
      sleep(operation, target, latency.get());
      if (latency.get().timesOut()) {
        return Optional.of(Fault.TIMEOUT_BEFORE_APPLY);
      }
    }
    faults.takeHook(operation, key).ifPresent(Runnable::run);
    return faults.takeFault(operation, key);
  }

  private void sleep(DatastoreOperation operation, String target, Faults.Latency latency) {
    try {
      latency.sleeper().sleep(latency.perCall());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DatastoreUnavailableException(
          failure(operation, target, "interrupted while waiting for the injected latency; nothing was sent"), e);
    }
  }

  private void discard(Outcome<?> outcome) {
    if (outcome.resource != null) {
      try {
        outcome.resource.close();
      } catch (IOException e) {
        // The stream is thrown away because its answer is declared lost; a close failure changes nothing.
      }
    }
  }

  private TierlockException injected(DatastoreOperation operation, String target, Fault fault) {
    return switch (fault) {
      case UNAVAILABLE -> new DatastoreUnavailableException(
          failure(operation, target, "the store answered 503 (injected UNAVAILABLE)"), null);
      case THROTTLED -> new DatastoreUnavailableException(
          failure(operation, target, "throttled by the store, 429 or 503 SlowDown (injected THROTTLED)"), null);
      case BUSY -> new DatastoreBusyException(
          failure(operation, target, "the store refused it for its per-object rate, 429 (injected BUSY)"), null);
      case ACCESS_DENIED -> new DatastoreAccessDeniedException(
          failure(operation, target, "access denied, 403 (injected ACCESS_DENIED)"), null);
      case TIMEOUT_BEFORE_APPLY -> operation.changes()
          ? new OutcomeUnknownException(failure(operation, target,
              "no answer before the call timeout; the change may or may not have landed (injected TIMEOUT_BEFORE_APPLY)"),
              null)
          : new DatastoreUnavailableException(
              failure(operation, target, "no answer before the call timeout (injected TIMEOUT_BEFORE_APPLY)"), null);
      case LOSE_RESPONSE -> operation.changes()
          ? new OutcomeUnknownException(failure(operation, target,
              "the answer was lost after the request was sent; the change may or may not have landed"
                  + " (injected LOSE_RESPONSE)"), null)
          : new DatastoreUnavailableException(
              failure(operation, target, "the connection broke while the answer was read (injected LOSE_RESPONSE)"),
              null);
    };
  }

  private String failure(DatastoreOperation operation, String target, String reason) {
    String what = switch (operation) {
      case READ -> "read object " + target;
      case OPEN_STREAM -> "download object " + target;
      case STAT -> "stat object " + target;
      case WRITE -> "write object " + target;
      case DELETE -> "delete object " + target;
      case LIST -> "list prefix \"" + target + "\"";
    };
    return "Cannot " + what + " at " + delegate.describe() + ": " + reason;
  }

  private static String errorOutcome(RuntimeException e) {
    return "ERROR:" + (e instanceof TierlockException t ? t.code() : e.getClass().getSimpleName());
  }

  static String describe(ReadCondition condition) {
    return condition instanceof ReadCondition.IfNoneMatch m ? "ifNoneMatch(" + m.version() + ")" : "always";
  }

  static String describe(WriteCondition condition) {
    if (condition instanceof WriteCondition.MustMatch m) {
      return "mustMatch(" + m.version() + ")";
    }
    return condition instanceof WriteCondition.MustNotExist ? "mustNotExist" : "none";
  }

  /** What one call produced, how to log it, and the download to close if its answer is declared lost. */
  private record Outcome<T>(T value, String text, @Nullable ObjectKey landed, @Nullable ObjectStream resource) {}
}
