package dev.tierlock.benchmarks;

import dev.tierlock.Sleeper;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * The original tool's S3/GCS lock over the datastore SPI, with its waits: a create-only write of a
 * lock object holding its holder, time and ttl; while a live holder has it, a read of the object
 * (stale past its ttl: deleted unconditionally, then 200 to 500 ms before the next try) and a wait
 * drawn at random in [1 s, min(8 s, 1 s x 2^attempt)]; {@code lock_timeout} after 60 s. Release is
 * an unconditional delete. Each call is retried as the original's SDK retries it ({@link
 * ClientRetries}). (The original also heads the object in its stale check and reads it
 * before the release to compare its nonce: two calls more than here, so this baseline is, if
 * anything, faster than the original.) Not thread-safe: one per writer.
 */
final class BaselineLock {

  static final Duration TTL = Duration.ofSeconds(30);
  static final Duration FIRST_WAIT = Duration.ofSeconds(1);
  static final Duration LONGEST_WAIT = Duration.ofSeconds(8);
  static final Duration MAX_WAIT = Duration.ofSeconds(60);

  /** The lock stayed held past {@link #MAX_WAIT}: the original's {@code LockTimeoutError}. */
  static final class TimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TimeoutException(ObjectKey key, Duration waited) {
      super("Cannot acquire lock " + key + ": held by another writer, timed out after " + waited.toMillis() + " ms");
    }

    /** Returns {@code lock_timeout}, the original's code. */
    String code() {
      return "lock_timeout";
    }
  }

  private final Datastore store;
  private final ObjectKey key;
  private final String holder;
  private final Clock clock;
  private final Sleeper sleeper;
  private final RandomGenerator random;

  BaselineLock(Datastore store, ObjectKey key, String holder, Clock clock, Sleeper sleeper, RandomGenerator random) {
    this.store = store;
    this.key = key;
    this.holder = holder;
    this.clock = clock;
    this.sleeper = sleeper;
    this.random = random;
  }

  /** Takes the lock, waiting as the original does. */
  void acquire() {
    Instant start = clock.instant();
    int attempt = 0;
    while (true) {
      Instant now = clock.instant();
      byte[] record = record(now);
      if (ClientRetries.call(() -> store.write(key, ObjectBody.of(record), WriteCondition.mustNotExist(),
          ObjectMetadata.EMPTY)) instanceof WriteResult.Written) {
        return;
      }
      ReadResult current = ClientRetries.call(() -> store.read(key, ReadCondition.always(), 64 * 1024));
      if (current == ReadResult.Absent.INSTANCE) {
        continue;
      }
      if (current instanceof ReadResult.Found found && isStale(found.bytes(), clock.instant())) {
        ClientRetries.call(() -> store.delete(key, WriteCondition.none()));
        sleep(Duration.ofMillis(200 + random.nextInt(301)));
        continue;
      }
      Duration waited = Duration.between(start, clock.instant());
      Duration left = MAX_WAIT.minus(waited);
      if (left.isNegative() || left.isZero()) {
        throw new TimeoutException(key, waited);
      }
      long upper = Math.min(LONGEST_WAIT.toMillis(), FIRST_WAIT.toMillis() << Math.min(attempt, 10));
      long wait = FIRST_WAIT.toMillis() + (upper > FIRST_WAIT.toMillis()
          ? random.nextLong(upper - FIRST_WAIT.toMillis() + 1) : 0);
      sleep(Duration.ofMillis(Math.min(wait, left.toMillis())));
      attempt++;
    }
  }

  /** Releases the lock: an unconditional delete. */
  void release() {
    ClientRetries.call(() -> store.delete(key, WriteCondition.none()));
  }

  private byte[] record(Instant now) {
    String json = "{\n  \"holder\": \"" + holder + "\",\n  \"acquiredAt\": \"" + now + "\",\n  \"ttlMs\": "
        + TTL.toMillis() + ",\n  \"nonce\": \"" + UUID.randomUUID() + "\"\n}\n";
    return json.getBytes(StandardCharsets.UTF_8);
  }

  private static boolean isStale(byte[] record, Instant now) {
    try {
      var tree = StringifyJson.read(record);
      Instant acquiredAt = Instant.parse(tree.path("acquiredAt").asText());
      return now.isAfter(acquiredAt.plusMillis(tree.path("ttlMs").asLong(TTL.toMillis())));
    } catch (RuntimeException e) {
      return false; // unreadable: held, as the original treats a fresh unreadable lock
    }
  }

  private void sleep(Duration duration) {
    try {
      sleeper.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot wait for lock " + key + ": interrupted", e);
    }
  }
}
