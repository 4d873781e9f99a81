package dev.tierlock.spi;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a store knows of one object, without its bytes: its key, version, size, user metadata and,
 * where the store tells it, when it was last written by the store's own clock. Immutable; two are
 * equal when their key, version, size and metadata are: the time is left out, since one store may
 * tell one version's time at different precisions from different calls (an S3 listing in
 * milliseconds, a HEAD in whole seconds).
 *
 * <p><b>Modification time.</b> The time the store itself assigned to the object's last write (S3's
 * {@code LastModified}, a GCS object's update time, a file's modification time), never a time the
 * caller sent: Tierlock judges the age of objects by it, and by the time of an object it has just
 * written as "now", so that no two machines' clocks are ever compared. A store that tells no such
 * time reports none ({@link #modified()} empty), and Tierlock then judges no age there.
 */
public final class StoredObject {

  private final ObjectKey key;
  private final ObjectVersion version;
  private final long size;
  private final ObjectMetadata metadata;
  private final @Nullable Instant modified;

  /**
   * Describes an object whose modification time the store does not tell.
   *
   * @param key the object's key
   * @param version the object's current version
   * @param size the object's length in bytes
   * @param metadata the object's user metadata
   * @throws IllegalArgumentException if {@code size} is negative
   */
  public StoredObject(ObjectKey key, ObjectVersion version, long size, ObjectMetadata metadata) {
    this(null, key, version, size, metadata);
  }

  /**
   * Describes an object with the time the store assigned to its last write.
   *
   * @param key the object's key
   * @param version the object's current version
   * @param size the object's length in bytes
   * @param metadata the object's user metadata
   * @param modified when the store last wrote the object, by the store's clock; {@code null} when
   *     the store's answer tells no time
   * @throws IllegalArgumentException if {@code size} is negative
   */
  public StoredObject(ObjectKey key, ObjectVersion version, long size, ObjectMetadata metadata,
      @Nullable Instant modified) {
    this(modified, key, version, size, metadata);
  }

  private StoredObject(@Nullable Instant modified, ObjectKey key, ObjectVersion version, long size,
      ObjectMetadata metadata) {
    if (size < 0) {
      throw new IllegalArgumentException("Cannot describe object " + key + ": negative size " + size);
    }
    this.key = Objects.requireNonNull(key, "key");
    // not checked: a store that does not version its objects gives none, and the self-check
    // refuses it as datastore_unsafe, naming what it lacks (the check is where that is said)
    this.version = version;
    this.size = size;
    this.metadata = Objects.requireNonNull(metadata, "metadata");
    this.modified = modified;
  }

  /** {@return the object's key} */
  public ObjectKey key() {
    return key;
  }

  /**
   * {@return the object's current version} A store that does not version its objects gives none
   * (null): the self-check refuses such a store ({@code datastore_unsafe}), so Tierlock never works
   * on one.
   */
  public ObjectVersion version() {
    return version;
  }

  /** {@return the object's length in bytes} */
  public long size() {
    return size;
  }

  /** {@return the object's user metadata} */
  public ObjectMetadata metadata() {
    return metadata;
  }

  /**
   * {@return when the store last wrote the object, by the store's own clock; empty when the store
   * does not tell} Precision is the store's (whole seconds on some S3 answers).
   */
  public Optional<Instant> modified() {
    return Optional.ofNullable(modified);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof StoredObject that && key.equals(that.key) && Objects.equals(version, that.version)
        && size == that.size && metadata.equals(that.metadata);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, version, size, metadata);
  }

  @Override
  public String toString() {
    return "StoredObject[key=" + key + ", version=" + version + ", size=" + size + ", metadata=" + metadata
        + (modified == null ? "" : ", modified=" + modified) + "]";
  }
}
