package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small in-memory datastore for core's own tests (the testkit's fake remote depends on core):
 * per-object versions {@code m1, m2, ...}, real preconditions unless told to ignore them, and a
 * log of the keys written. Thread-safe.
 */
class MemoryDatastore implements Datastore {

  /** An object, dated by this store's own clock ({@link #storeClock}). */
  private record Stored(byte[] bytes, ObjectVersion version, ObjectMetadata metadata, java.time.Instant modified) {}

  /** The store's own clock: each write's time, never earlier than the last one's. */
  private java.time.Clock storeClock = java.time.Clock.systemUTC();
  private java.time.Instant lastModified = java.time.Instant.EPOCH;

  /** Sets the store's own clock, which dates each later write (default the system's). */
  synchronized void storeClock(java.time.Clock clock) {
    storeClock = clock;
  }

  private final TreeMap<ObjectKey, Stored> objects = new TreeMap<>();
  private final List<String> writes = new ArrayList<>();
  private static final AtomicLong INSTANCES = new AtomicLong();

  private final long instance = INSTANCES.incrementAndGet();
  private final List<String> calls = new ArrayList<>();
  private final String endpoint;
  private long counter;
  private boolean ignorePreconditions;
  private boolean ignoreDeletePreconditions;
  private java.util.concurrent.@org.jspecify.annotations.Nullable CyclicBarrier racingWrites;
  private boolean closed;

  /** A store with an identity of its own. */
  MemoryDatastore() {
    this.endpoint = "test-" + instance;
  }

  /** A store that claims the identity endpoint {@code endpoint}: two such stores look alike but hold different objects. */
  MemoryDatastore(String endpoint) {
    this.endpoint = endpoint;
  }

  /** Makes conditional deletes ignore their precondition. */
  synchronized void ignoreDeletePreconditions() {
    ignoreDeletePreconditions = true;
  }

  /**
   * Makes the self-check's racing writes non-atomic, as a store that checks one request at a time
   * might: each checks its precondition, then waits until {@code parties} racers have checked, then
   * writes. (Racers are told apart by the self-check's body text, so other writes are unaffected.)
   */
  synchronized void raceConditionalWrites(int parties) {
    racingWrites = new java.util.concurrent.CyclicBarrier(parties);
  }

  /** Returns every call, one line each ("READ key", "STAT key", "WRITE key cond", "DELETE key cond", "LIST prefix"). */
  synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  /** Makes the store ignore every precondition, as a broken S3-compatible store might. */
  synchronized void ignorePreconditions() {
    ignorePreconditions = true;
  }

  /** Returns "WRITE key condition" / "DELETE key condition" lines, in order. */
  synchronized List<String> writes() {
    return List.copyOf(writes);
  }

  synchronized List<ObjectKey> keys() {
    return List.copyOf(objects.keySet());
  }

  synchronized boolean isClosed() {
    return closed;
  }

  /** Opens this store again after a close, with its objects; returns it. */
  synchronized MemoryDatastore reopen() {
    closed = false;
    return this;
  }

  @Override
  public DatastoreIdentity identity() {
    return new DatastoreIdentity("memory", endpoint, "", "");
  }

  @Override
  public String describe() {
    return "memory://test/" + instance;
  }

  @Override
  public synchronized ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    calls.add("READ " + key);
    Stored s = objects.get(key);
    if (s == null) {
      return ReadResult.Absent.INSTANCE;
    }
    if (s.bytes().length > maxBytes) {
      throw new ObjectTooLargeException(key.value(), s.bytes().length, maxBytes, null);
    }
    if (condition instanceof ReadCondition.IfNoneMatch m && m.version().equals(s.version())) {
      return new ReadResult.NotModified(s.version());
    }
    return new ReadResult.Found(object(key, s), s.bytes().clone());
  }

  @Override
  public synchronized Optional<ObjectStream> openStream(ObjectKey key) {
    Stored s = objects.get(key);
    if (s == null) {
      return Optional.empty();
    }
    StoredObject object = object(key, s);
    InputStream in = new ByteArrayInputStream(s.bytes().clone());
    return Optional.of(new ObjectStream() {
      @Override
      public StoredObject object() {
        return object;
      }

      @Override
      public InputStream stream() {
        return in;
      }

      @Override
      public void close() {}
    });
  }

  @Override
  public synchronized Optional<StoredObject> stat(ObjectKey key) {
    calls.add("STAT " + key);
    return Optional.ofNullable(objects.get(key)).map(s -> object(key, s));
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    java.util.concurrent.CyclicBarrier barrier;
    synchronized (this) {
      writes.add("WRITE " + key + " " + condition);
      calls.add("WRITE " + key + " " + condition);
      if (!holds(key, condition)) {
        return WriteResult.PreconditionFailed.INSTANCE;
      }
      barrier = racingWrites != null && isRacer(body) ? racingWrites : null;
      if (barrier == null) {
        return store(key, body, metadata);
      }
    }
    if (barrier != null) {
      try {
        barrier.await(10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException | java.util.concurrent.BrokenBarrierException
          | java.util.concurrent.TimeoutException e) {
        // fewer racers than parties: write anyway
      }
    }
    return store(key, body, metadata);
  }

  private static boolean isRacer(ObjectBody body) {
    try {
      String text = new String(body.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      return text.startsWith("tierlock self-check: round ") && text.contains(" racer ");
    } catch (IOException e) {
      return false;
    }
  }

  private synchronized WriteResult store(ObjectKey key, ObjectBody body, ObjectMetadata metadata) {
    try {
      ObjectVersion version = ObjectVersion.of("m" + (++counter));
      java.time.Instant now = storeClock.instant();
      lastModified = now.isAfter(lastModified) ? now : lastModified;
      objects.put(key, new Stored(body.readAllBytes(), version, metadata, lastModified));
      return new WriteResult.Written(version);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized DeleteResult delete(ObjectKey key, WriteCondition condition) {
    if (condition instanceof WriteCondition.MustNotExist) {
      throw new IllegalArgumentException("Cannot delete with mustNotExist");
    }
    writes.add("DELETE " + key + " " + condition);
    calls.add("DELETE " + key + " " + condition);
    if (!objects.containsKey(key)) {
      return DeleteResult.ABSENT;
    }
    if (!ignoreDeletePreconditions && !holds(key, condition)) {
      return DeleteResult.PRECONDITION_FAILED;
    }
    objects.remove(key);
    return DeleteResult.DELETED;
  }

  @Override
  public synchronized List<StoredObject> list(String prefix) {
    calls.add("LIST " + prefix);
    List<StoredObject> out = new ArrayList<>();
    objects.forEach((k, s) -> {
      if (k.value().startsWith(prefix)) {
        out.add(object(k, s));
      }
    });
    return out;
  }

  @Override
  public synchronized void close() {
    closed = true;
  }

  private boolean holds(ObjectKey key, WriteCondition condition) {
    if (ignorePreconditions) {
      return true;
    }
    Stored s = objects.get(key);
    if (condition instanceof WriteCondition.MustNotExist) {
      return s == null;
    }
    if (condition instanceof WriteCondition.MustMatch m) {
      return s != null && s.version().equals(m.version());
    }
    return true;
  }

  private static StoredObject object(ObjectKey key, Stored s) {
    return new StoredObject(key, s.version(), s.bytes().length, s.metadata(), s.modified());
  }
}
