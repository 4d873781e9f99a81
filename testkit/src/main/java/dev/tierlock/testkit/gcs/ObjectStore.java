package dev.tierlock.testkit.gcs;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The state of one fake server: its buckets and their objects. Every change to an object name
 * runs under that name's lock, and the request's preconditions are checked inside the same lock,
 * so check and change are one atomic step. Generations come from one server-wide counter, so they
 * increase strictly across every object. Thread-safe.
 */
final class ObjectStore {

  /** The most bytes of custom metadata (names and values, UTF-8) one object may carry: 8 KiB, as on GCS. */
  static final int MAX_METADATA_BYTES = 8 * 1024;

  private static final Pattern BUCKET_NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]");

  private final Clock clock;
  private final AtomicLong generations;
  private final ConcurrentHashMap<String, BucketState> buckets = new ConcurrentHashMap<>();

  ObjectStore(Clock clock) {
    this.clock = clock;
    // GCS generations are microsecond timestamps; start there and count up.
    Instant start = clock.instant();
    this.generations = new AtomicLong(start.getEpochSecond() * 1_000_000L + start.getNano() / 1_000L);
  }

  Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  /** Returns whether {@code name} is a bucket name GCS accepts (3 to 63 characters; dotted-name rules aside). */
  static boolean isValidBucketName(String name) {
    return BUCKET_NAME.matcher(name).matches();
  }

  /**
   * Creates a bucket.
   *
   * @throws GcsFakeException 400 for an invalid name, 409 when the bucket exists
   */
  BucketState createBucket(String name) {
    if (!isValidBucketName(name)) {
      throw GcsFakeException.invalid("Cannot create bucket " + name + ": invalid bucket name");
    }
    BucketState fresh = new BucketState(name, now());
    BucketState earlier = buckets.putIfAbsent(name, fresh);
    if (earlier != null) {
      throw new GcsFakeException(409, "conflict", "Cannot create bucket " + name + ": it already exists");
    }
    return fresh;
  }

  /**
   * Returns a bucket.
   *
   * @throws GcsFakeException 404 when it does not exist
   */
  BucketState bucket(String name) {
    BucketState bucket = buckets.get(name);
    if (bucket == null) {
      throw GcsFakeException.notFound("Cannot find bucket " + name + ": the specified bucket does not exist");
    }
    return bucket;
  }

  List<BucketState> buckets() {
    List<BucketState> all = new ArrayList<>(buckets.values());
    all.sort((a, b) -> BucketState.NAME_ORDER.compare(a.name(), b.name()));
    return all;
  }

  /**
   * Deletes an empty bucket.
   *
   * @throws GcsFakeException 404 when it does not exist, 409 when it holds objects
   */
  void deleteBucket(String name) {
    BucketState bucket = bucket(name);
    if (!bucket.isEmpty()) {
      throw new GcsFakeException(409, "conflict", "Cannot delete bucket " + name + ": the bucket is not empty");
    }
    buckets.remove(name, bucket);
  }

  /**
   * Writes a new generation of an object, if the preconditions hold.
   *
   * @throws GcsFakeException 404 (bucket), 400 (name), 412 (precondition)
   */
  FakeObject upload(
      String bucketName,
      String name,
      byte[] bytes,
      String contentType,
      Map<String, String> metadata,
      Preconditions preconditions) {
    BucketState bucket = bucket(bucketName);
    checkObjectName(name);
    checkMetadata(metadata, "upload object " + name + " to bucket " + bucketName);
    BucketState.Slot slot = bucket.slot(name);
    slot.lock.lock();
    try {
      effective(bucket, preconditions).checkUpload(slot.live, "upload object " + name + " to bucket " + bucketName);
      Instant now = now();
      FakeObject written = new FakeObject(
          bucketName, name, bytes, generations.incrementAndGet(), 1, contentType, metadata, now, now);
      slot.live = written;
      return written;
    } finally {
      slot.lock.unlock();
    }
  }

  /**
   * Returns the live object for a read (metadata or media).
   *
   * @param generation the generation the request names, or null for the live one
   * @throws GcsFakeException 404 when absent or not at that generation, 304 or 412 by preconditions
   */
  FakeObject read(String bucketName, String name, @Nullable Long generation, Preconditions preconditions) {
    BucketState bucket = bucket(bucketName);
    FakeObject live = existing(bucket, name, generation);
    effective(bucket, preconditions)
        .checkExisting(live, Preconditions.Use.READ, "read object " + name + " in bucket " + bucketName);
    return live;
  }

  /**
   * Replaces an object's metadata, if the preconditions hold; the metageneration goes up by one.
   *
   * @param change computes the new value from the live one
   * @throws GcsFakeException 404 when absent, 412 by preconditions
   */
  FakeObject patch(
      String bucketName,
      String name,
      @Nullable Long generation,
      Preconditions preconditions,
      UnaryOperator<FakeObject> change) {
    BucketState bucket = bucket(bucketName);
    BucketState.Slot slot = bucket.slot(name);
    slot.lock.lock();
    try {
      FakeObject live = existing(bucket, name, generation);
      effective(bucket, preconditions)
          .checkExisting(live, Preconditions.Use.WRITE, "patch object " + name + " in bucket " + bucketName);
      FakeObject patched = change.apply(live);
      checkMetadata(patched.metadata(), "patch object " + name + " in bucket " + bucketName);
      slot.live = patched;
      return patched;
    } finally {
      slot.lock.unlock();
    }
  }

  /**
   * Deletes an object, if the preconditions hold.
   *
   * @throws GcsFakeException 404 when absent, 412 by preconditions
   */
  void delete(String bucketName, String name, @Nullable Long generation, Preconditions preconditions) {
    BucketState bucket = bucket(bucketName);
    BucketState.Slot slot = bucket.slot(name);
    slot.lock.lock();
    try {
      FakeObject live = existing(bucket, name, generation);
      effective(bucket, preconditions)
          .checkExisting(live, Preconditions.Use.WRITE, "delete object " + name + " in bucket " + bucketName);
      slot.live = null;
    } finally {
      slot.lock.unlock();
    }
  }

  /** Returns the preconditions in force: none when the bucket ignores them. */
  private static Preconditions effective(BucketState bucket, Preconditions requested) {
    return bucket.preconditionMode() == PreconditionMode.IGNORED ? Preconditions.NONE : requested;
  }

  private static FakeObject existing(BucketState bucket, String name, @Nullable Long generation) {
    FakeObject live = bucket.live(name);
    if (live == null || (generation != null && generation != live.generation())) {
      throw GcsFakeException.notFound("Cannot find object " + name + " in bucket " + bucket.name()
          + (generation == null ? "" : " at generation " + generation) + ": no such object");
    }
    return live;
  }

  /**
   * Checks the size of custom metadata as GCS does: the UTF-8 bytes of every name and value, at
   * most {@value #MAX_METADATA_BYTES} in all.
   *
   * @throws GcsFakeException 400 {@code invalid} when it is larger
   */
  static void checkMetadata(Map<String, String> metadata, String action) {
    long bytes = 0;
    for (Map.Entry<String, String> e : metadata.entrySet()) {
      bytes += e.getKey().getBytes(StandardCharsets.UTF_8).length + e.getValue().getBytes(StandardCharsets.UTF_8).length;
    }
    if (bytes > MAX_METADATA_BYTES) {
      throw GcsFakeException.invalid("Cannot " + action + ": the custom metadata holds " + bytes
          + " bytes of names and values, more than the " + MAX_METADATA_BYTES + " allowed");
    }
  }

  /**
   * Validates an object name as GCS does.
   *
   * @throws GcsFakeException 400 when it is invalid
   */
  static void checkObjectName(String name) {
    String problem = null;
    if (name.isEmpty()) {
      problem = "an object name is never empty";
    } else if (name.getBytes(StandardCharsets.UTF_8).length > 1024) {
      problem = "an object name is at most 1024 bytes of UTF-8";
    } else if (name.indexOf('\r') >= 0 || name.indexOf('\n') >= 0) {
      problem = "an object name holds no carriage return or line feed";
    } else if (name.equals(".") || name.equals("..")) {
      problem = "an object name is never . or ..";
    }
    if (problem != null) {
      throw GcsFakeException.invalid("Cannot use object name \"" + name + "\": " + problem);
    }
  }
}
