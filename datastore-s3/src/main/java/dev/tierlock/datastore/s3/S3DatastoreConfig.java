package dev.tierlock.datastore.s3;

import java.time.Duration;
import java.util.Objects;

/**
 * Where an {@link S3Datastore} keeps its objects and how long each call may take. Immutable and
 * validated on construction; thread-safe.
 *
 * <p><b>Deadlines.</b> Every call the datastore makes carries both deadlines as a per-request
 * override, so they hold whatever the S3 client was built with:
 *
 * <ul>
 *   <li>{@link #apiCallAttemptTimeout()}: the longest one HTTP attempt may take, from sending the
 *       request to reading the whole response (default {@value #DEFAULT_ATTEMPT_SECONDS} s);
 *   <li>{@link #apiCallTimeout()}: the longest a whole call may take, retries and backoff included
 *       (default {@value #DEFAULT_CALL_SECONDS} s). Never shorter than the attempt timeout.
 * </ul>
 *
 * <p>A streaming download ({@link S3Datastore#openStream}) is bounded by these deadlines until the
 * response headers arrive; each later read of its body is bounded by the HTTP client's socket
 * timeout. Raise both deadlines for large archives on slow links.
 *
 * @param bucket the bucket, following the S3 general-purpose bucket naming rules
 * @param prefix the key prefix every object key is placed under: {@code ""} for the bucket root,
 *     otherwise segments ending with exactly one {@code /} (normalised by the constructor: a leading
 *     {@code /} is dropped and a trailing one added)
 * @param apiCallTimeout the deadline of a whole call, positive
 * @param apiCallAttemptTimeout the deadline of one attempt, positive, at most {@code apiCallTimeout}
 * @param conditionalWriteRetries who retries a conditional write or delete
 * @param listPageSize the number of keys asked for per listing page, 1 to 1000
 */
public record S3DatastoreConfig(
    String bucket,
    String prefix,
    Duration apiCallTimeout,
    Duration apiCallAttemptTimeout,
    ConditionalWriteRetries conditionalWriteRetries,
    int listPageSize) {

  /** The default deadline of a whole call, in seconds. */
  public static final long DEFAULT_CALL_SECONDS = 60;

  /** The default deadline of one attempt, in seconds. */
  public static final long DEFAULT_ATTEMPT_SECONDS = 20;

  /** The most keys S3 returns per listing page, and the default page size. */
  public static final int MAX_LIST_PAGE_SIZE = 1000;

  /**
   * Validates the configuration and normalises the prefix.
   *
   * @param bucket the bucket, following the S3 general-purpose bucket naming rules
   * @param prefix the key prefix every object key is placed under: {@code ""} for the bucket root,
   *     otherwise segments ending with exactly one {@code /} (normalised by the constructor: a
   *     leading {@code /} is dropped and a trailing one added)
   * @param apiCallTimeout the deadline of a whole call, positive
   * @param apiCallAttemptTimeout the deadline of one attempt, positive, at most {@code
   *     apiCallTimeout}
   * @param conditionalWriteRetries who retries a conditional write or delete
   * @param listPageSize the number of keys asked for per listing page, 1 to 1000
   * @throws IllegalArgumentException if the bucket name breaks a rule, the prefix has an empty,
   *     {@code .} or {@code ..} segment, a deadline is not positive, the attempt deadline is longer
   *     than the call deadline, or the page size is out of range; the message names the value
   */
  public S3DatastoreConfig {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(conditionalWriteRetries, "conditionalWriteRetries");
    S3Naming.bucketProblem(bucket).ifPresent(problem -> {
      throw new IllegalArgumentException("Cannot use bucket name \"" + bucket + "\": " + problem);
    });
    prefix = S3Naming.normalisePrefix(prefix);
    requirePositive("apiCallTimeout", apiCallTimeout);
    requirePositive("apiCallAttemptTimeout", apiCallAttemptTimeout);
    if (apiCallAttemptTimeout.compareTo(apiCallTimeout) > 0) {
      throw new IllegalArgumentException("Cannot use apiCallAttemptTimeout " + apiCallAttemptTimeout
          + ": it is longer than apiCallTimeout " + apiCallTimeout);
    }
    if (listPageSize < 1 || listPageSize > MAX_LIST_PAGE_SIZE) {
      throw new IllegalArgumentException(
          "Cannot use listPageSize " + listPageSize + ": it is between 1 and " + MAX_LIST_PAGE_SIZE);
    }
  }

  /**
   * {@return the configuration of a bucket and prefix with every default}
   *
   * @param bucket the bucket name
   * @param prefix the key prefix, {@code ""} for the bucket root
   * @throws IllegalArgumentException if the bucket or prefix breaks a rule
   */
  public static S3DatastoreConfig of(String bucket, String prefix) {
    return builder(bucket).prefix(prefix).build();
  }

  /**
   * {@return a builder for a bucket, with the bucket root as prefix and every default}
   *
   * @param bucket the bucket
   */
  public static Builder builder(String bucket) {
    return new Builder(bucket);
  }

  /** {@return a builder holding this configuration's values} */
  public Builder toBuilder() {
    return new Builder(bucket)
        .prefix(prefix)
        .apiCallTimeout(apiCallTimeout)
        .apiCallAttemptTimeout(apiCallAttemptTimeout)
        .conditionalWriteRetries(conditionalWriteRetries)
        .listPageSize(listPageSize);
  }

  private static void requirePositive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException("Cannot use " + name + " " + value + ": a deadline is positive");
    }
  }

  /** Collects the settings of an {@link S3DatastoreConfig}. Not thread-safe. */
  public static final class Builder {

    private final String bucket;
    private String prefix = "";
    private Duration apiCallTimeout = Duration.ofSeconds(DEFAULT_CALL_SECONDS);
    private Duration apiCallAttemptTimeout = Duration.ofSeconds(DEFAULT_ATTEMPT_SECONDS);
    private ConditionalWriteRetries conditionalWriteRetries = ConditionalWriteRetries.CALLER;
    private int listPageSize = MAX_LIST_PAGE_SIZE;

    private Builder(String bucket) {
      this.bucket = bucket;
    }

    /**
     * Sets the key prefix (default: the bucket root).
     *
     * @param prefix the key prefix, normalised as the configuration's constructor does
     * @return this builder
     */
    public Builder prefix(String prefix) {
      this.prefix = prefix;
      return this;
    }

    /**
     * Sets the deadline of a whole call (default {@value S3DatastoreConfig#DEFAULT_CALL_SECONDS} s).
     *
     * @param apiCallTimeout the deadline of a whole call, positive
     * @return this builder
     */
    public Builder apiCallTimeout(Duration apiCallTimeout) {
      this.apiCallTimeout = apiCallTimeout;
      return this;
    }

    /**
     * Sets the deadline of one attempt (default {@value S3DatastoreConfig#DEFAULT_ATTEMPT_SECONDS} s).
     *
     * @param apiCallAttemptTimeout the deadline of one attempt, positive, at most the call's
     * @return this builder
     */
    public Builder apiCallAttemptTimeout(Duration apiCallAttemptTimeout) {
      this.apiCallAttemptTimeout = apiCallAttemptTimeout;
      return this;
    }

    /**
     * Sets who retries conditional writes and deletes (default {@link ConditionalWriteRetries#CALLER}).
     *
     * @param conditionalWriteRetries who retries
     * @return this builder
     */
    public Builder conditionalWriteRetries(ConditionalWriteRetries conditionalWriteRetries) {
      this.conditionalWriteRetries = conditionalWriteRetries;
      return this;
    }

    /**
     * Sets the number of keys asked for per listing page (default {@value S3DatastoreConfig#MAX_LIST_PAGE_SIZE}).
     *
     * @param listPageSize the page size, 1 to 1000
     * @return this builder
     */
    public Builder listPageSize(int listPageSize) {
      this.listPageSize = listPageSize;
      return this;
    }

    /**
     * Builds the configuration.
     *
     * @return the configuration
     * @throws IllegalArgumentException if a value breaks a rule
     */
    public S3DatastoreConfig build() {
      return new S3DatastoreConfig(
          bucket, prefix, apiCallTimeout, apiCallAttemptTimeout, conditionalWriteRetries, listPageSize);
    }
  }
}
