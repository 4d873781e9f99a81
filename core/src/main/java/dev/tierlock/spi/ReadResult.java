package dev.tierlock.spi;

/** The outcome of {@link Datastore#read}. */
public sealed interface ReadResult {

  /**
   * The object exists and its bytes were read whole.
   *
   * @param object the object as read
   * @param bytes the object's bytes (owned by the caller)
   */
  record Found(StoredObject object, byte[] bytes) implements ReadResult {}

  /**
   * The object still has the version the read was conditional on; no body was transferred.
   *
   * @param version the unchanged version
   */
  record NotModified(ObjectVersion version) implements ReadResult {}

  /** No object exists at the key. */
  enum Absent implements ReadResult {
    /** The only instance. */
    INSTANCE
  }
}
