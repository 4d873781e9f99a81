package dev.tierlock.spi;

/**
 * What a store knows of one object, without its bytes.
 *
 * @param key the object's key
 * @param version the object's current version
 * @param size the object's length in bytes
 * @param metadata the object's user metadata
 */
public record StoredObject(ObjectKey key, ObjectVersion version, long size, ObjectMetadata metadata) {

  /**
   * Validates the values.
   *
   * @param key the object's key
   * @param version the object's current version
   * @param size the object's length in bytes
   * @param metadata the object's user metadata
   * @throws IllegalArgumentException if {@code size} is negative
   */
  public StoredObject {
    if (size < 0) {
      throw new IllegalArgumentException("Cannot describe object " + key + ": negative size " + size);
    }
  }
}
