package dev.tierlock.spi;

import org.jspecify.annotations.Nullable;

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

  // equals and hashCode written out: a record's own are made at their first call (a bootstrap that
  // spins classes no start-up archive holds), which every command line run pays
  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof ObjectVersion version && value.equals(version.value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }
}
