package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link Datastore} decorator that counts round trips per operation; it wraps any datastore. A
 * call is counted when it is made, whether it then succeeds or throws (a failed call still costs a
 * round trip). Reading a download's bytes is part of its one {@link DatastoreOperation#OPEN_STREAM}.
 * {@link #identity()}, {@link #describe()} and {@link #maxMetadataBytes()} are the wrapped store's
 * and cost nothing. Thread-safe.
 */
public final class CountingDatastore extends ForwardingDatastore {

  private final Datastore delegate;
  private final Map<DatastoreOperation, LongAdder> counts = new EnumMap<>(DatastoreOperation.class);

  private CountingDatastore(Datastore delegate) {
    this.delegate = delegate;
    for (DatastoreOperation operation : DatastoreOperation.values()) {
      counts.put(operation, new LongAdder());
    }
  }

  /**
   * Wraps {@code delegate} with every count at zero; closing the wrapper closes it.
   *
   * @param delegate the datastore whose calls are counted
   * @return the wrapper
   */
  public static CountingDatastore wrap(Datastore delegate) {
    return new CountingDatastore(delegate);
  }

  /** Returns the wrapped datastore. */
  @Override
  public Datastore delegate() {
    return delegate;
  }

  /** Returns true: it only counts the calls. */
  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
  }

  /**
   * {@return how many calls of {@code operation} were made since creation or {@link #reset()}}
   *
   * @param operation the operation
   */
  public long count(DatastoreOperation operation) {
    return counts.get(operation).sum();
  }

  /** {@return how many calls were made in all} */
  public long total() {
    return counts.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** {@return every operation's count, zeros included, in {@link DatastoreOperation} order (a snapshot)} */
  public Map<DatastoreOperation, Long> counts() {
    Map<DatastoreOperation, Long> snapshot = new EnumMap<>(DatastoreOperation.class);
    counts.forEach((operation, count) -> snapshot.put(operation, count.sum()));
    return Collections.unmodifiableMap(snapshot);
  }

  /** Sets every count back to zero. */
  public void reset() {
    counts.values().forEach(LongAdder::reset);
  }

  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    counts.get(DatastoreOperation.READ).increment();
    return delegate.read(key, condition, maxBytes);
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    counts.get(DatastoreOperation.OPEN_STREAM).increment();
    return delegate.openStream(key);
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    counts.get(DatastoreOperation.STAT).increment();
    return delegate.stat(key);
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    counts.get(DatastoreOperation.WRITE).increment();
    return delegate.write(key, body, condition, metadata);
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    counts.get(DatastoreOperation.DELETE).increment();
    return delegate.delete(key, condition);
  }

  @Override
  public List<StoredObject> list(String prefix) {
    counts.get(DatastoreOperation.LIST).increment();
    return delegate.list(prefix);
  }

  @Override
  public String toString() {
    return "CountingDatastore" + counts();
  }
}
