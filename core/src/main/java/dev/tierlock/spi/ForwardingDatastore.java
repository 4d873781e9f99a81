package dev.tierlock.spi;

import java.util.List;
import java.util.Optional;

/**
 * A datastore that forwards every call to another one: extend it and override only the calls a
 * decorator changes (counting, fault injection, a self-check before the first write). Forwards
 * everything else, {@link #identity()}, {@link #maxMetadataBytes()}, {@link #versionsRepeat()}, {@link #minWriteInterval()} and
 * {@link #close()} included,
 * so wrapping a store never changes how Tierlock uses it. Thread-safe when the delegate is.
 */
public abstract class ForwardingDatastore implements Datastore {

  /** Creates the decorator; {@link #delegate()} supplies the target. */
  protected ForwardingDatastore() {}

  /** {@return the datastore every call goes to} */
  protected abstract Datastore delegate();

  @Override
  public DatastoreIdentity identity() {
    return delegate().identity();
  }

  @Override
  public String describe() {
    return delegate().describe();
  }

  @Override
  public int maxMetadataBytes() {
    return delegate().maxMetadataBytes();
  }

  @Override
  public boolean versionsRepeat() {
    return delegate().versionsRepeat();
  }

  @Override
  public java.time.Duration minWriteInterval() {
    return delegate().minWriteInterval();
  }

  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    return delegate().read(key, condition, maxBytes);
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    return delegate().openStream(key);
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    return delegate().stat(key);
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    return delegate().write(key, body, condition, metadata);
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    return delegate().delete(key, condition);
  }

  @Override
  public List<StoredObject> list(String prefix) {
    return delegate().list(prefix);
  }

  @Override
  public void close() {
    delegate().close();
  }
}
