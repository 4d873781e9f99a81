package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;

/**
 * The datastore as {@link Tierlock#datastore()} hands it out: every call forwarded, except that a
 * write or delete of a shared lockfile or a global lock, in any namespace, is refused. Those
 * objects change only through a transaction's conditional publish and the lease, so no caller can
 * overwrite them by accident with a plain write. Closing it does nothing: the {@link Tierlock}
 * owns the store. Thread-safe when the delegate is.
 */
final class ReservedKeys extends ForwardingDatastore {

  private final Datastore delegate;

  ReservedKeys(Datastore delegate) {
    this.delegate = delegate;
  }

  @Override
  protected Datastore delegate() {
    return delegate;
  }

  /** Returns true: a write or delete it does not refuse reaches the store with its condition. */
  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    refuseReserved(key, "write");
    return delegate.write(key, body, condition, metadata);
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    refuseReserved(key, "delete");
    return delegate.delete(key, condition);
  }

  @Override
  public void close() {
    // the Tierlock that handed this out closes the store
  }

  /** Returns whether {@code key} is a shared lockfile or a global lock, in any namespace. */
  static boolean isReserved(ObjectKey key) {
    String value = key.value();
    return names(value, TierPath.LOCKFILE.value()) || names(value, DistributedLock.GLOBAL_LOCK_NAME);
  }

  private static boolean names(String key, String object) {
    return key.equals(object) || key.endsWith("/" + object);
  }

  private static void refuseReserved(ObjectKey key, String verb) {
    if (isReserved(key)) {
      throw new IllegalArgumentException("Cannot " + verb + " " + key + " through Tierlock.datastore(): a shared"
          + " lockfile changes only through a transaction, and a global lock only through the lock");
    }
  }

  @Override
  public String toString() {
    return "ReservedKeys[" + delegate + "]";
  }
}
