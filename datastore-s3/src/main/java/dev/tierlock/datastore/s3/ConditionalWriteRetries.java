package dev.tierlock.datastore.s3;

/**
 * Who retries a conditional write or delete ({@code If-None-Match: *} or {@code If-Match}) that
 * failed for a transient reason. Either way, a call is never reported as "precondition failed,
 * nothing changed" when an earlier attempt of it may have landed.
 */
public enum ConditionalWriteRetries {

  /**
   * One attempt per call; the caller (Tierlock's transaction and lease lock) retries after reading
   * the state back. A lost response is reported as {@link dev.tierlock.spi.OutcomeUnknownException},
   * and a 412 always means that this call changed nothing. The default.
   */
  CALLER,

  /**
   * The S3 client's own retry strategy also retries conditional calls. Any failure after a retried
   * attempt, a 412 included, is reported as {@link dev.tierlock.spi.OutcomeUnknownException}, because
   * the first attempt may have landed and the retry may have hit that very write.
   */
  SDK
}
