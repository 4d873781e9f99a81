package dev.tierlock.testkit;

/** The operations of a {@link dev.tierlock.spi.Datastore}, for fault targeting, counting and the operation log. */
public enum DatastoreOperation {
  /** {@link dev.tierlock.spi.Datastore#read}. */
  READ,
  /** {@link dev.tierlock.spi.Datastore#openStream}. */
  OPEN_STREAM,
  /** {@link dev.tierlock.spi.Datastore#stat}. */
  STAT,
  /** {@link dev.tierlock.spi.Datastore#write}. */
  WRITE,
  /** {@link dev.tierlock.spi.Datastore#delete}. */
  DELETE,
  /** {@link dev.tierlock.spi.Datastore#list}. */
  LIST;

  /** {@return whether this operation may change the store (a write or a delete)} */
  public boolean changes() {
    return this == WRITE || this == DELETE;
  }
}
