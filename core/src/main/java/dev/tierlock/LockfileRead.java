package dev.tierlock;

import java.util.Objects;
import java.util.Optional;

/**
 * The shared lockfile as one read found it ({@link Tierlock#read()}, {@link Tierlock#cached()}):
 * its version in the datastore and what it holds. Immutable.
 *
 * @param version the store's version of it (an S3 ETag, a GCS generation, a digest on a
 *     filesystem), empty when it does not exist
 * @param lockfile what it holds ({@link Lockfile#EMPTY} when it does not exist)
 */
public record LockfileRead(Optional<String> version, Lockfile lockfile) {

  /**
   * Validates the values.
   *
   * @param version the store's version of it, empty when it does not exist
   * @param lockfile what it holds
   * @throws NullPointerException if a value is null
   */
  public LockfileRead {
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(lockfile, "lockfile");
  }

  /**
   * {@return whether this read found another version than {@code earlier}: a lockfile that appeared,
   * changed or disappeared since}
   *
   * @param earlier the version an earlier read found (empty when it found none)
   */
  public boolean changedSince(Optional<String> earlier) {
    return !version.equals(earlier);
  }
}
