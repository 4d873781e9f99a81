package dev.tierlock.spi;

/**
 * The opaque version of one stored object: the {@code ETag} on S3, the generation on GCS, a
 * content digest on a filesystem. Two reads of an object that was not written in between return
 * equal versions; a write always produces a version different from the one it replaced unless the
 * bytes and metadata are identical. Compared only for equality.
 *
 * @param value the version text, never empty
 */
public record ObjectVersion(String value) {

  /**
   * Validates the version.
   *
   * @param value the version text, never empty
   * @throws IllegalArgumentException if {@code value} is empty or blank
   */
  public ObjectVersion {
    if (value.isBlank()) {
      throw new IllegalArgumentException("Cannot use object version \"\": a version is never blank");
    }
  }

  /**
   * {@return the version with this text}
   *
   * @param value the version text, never empty
   */
  public static ObjectVersion of(String value) {
    return new ObjectVersion(value);
  }

  @Override
  public String toString() {
    return value;
  }
}
