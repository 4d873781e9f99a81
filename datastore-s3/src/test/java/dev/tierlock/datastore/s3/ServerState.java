package dev.tierlock.datastore.s3;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * What the test S3 server does beyond storing objects, per bucket: its precondition mode, injected
 * answers to writes, the per-key locks that make conditional writes atomic, and the log of what it
 * wrote ({@link ServerObjectLog}). Thread-safe.
 */
final class ServerState {

  /** How a bucket treats preconditions. */
  enum Mode {
    /** Preconditions are honoured atomically, as on AWS S3. */
    STRICT,
    /**
     * Preconditions on writes and deletes are dropped before they reach the store, like the
     * S3-compatible stores that ignore them: a create-only write over an existing object succeeds.
     * (S3Proxy's handler still pre-checks {@code If-Match} on writes, non-atomically.)
     */
    IGNORE_PRECONDITIONS
  }

  /** When an injected write failure strikes. */
  enum Phase {
    /** Before the write is applied: the server refuses it and stores nothing. */
    BEFORE_APPLY,
    /** After the write is applied: the object is stored, then the error is answered. */
    AFTER_APPLY
  }

  private record WriteFault(Phase phase, S3Exception answer) {}

  private static final int STRIPES = 256;

  private final Object[] locks = new Object[STRIPES];
  private final Map<String, Mode> modes = new ConcurrentHashMap<>();
  private final Map<String, Deque<WriteFault>> faults = new ConcurrentHashMap<>();
  private final Map<String, ServerObjectLog> logs = new ConcurrentHashMap<>();

  ServerState() {
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new Object();
    }
  }

  Object lockFor(String bucket, String key) {
    return locks[Math.floorMod((bucket + "/" + key).hashCode(), STRIPES)];
  }

  Mode mode(String bucket) {
    return modes.getOrDefault(bucket, Mode.STRICT);
  }

  void mode(String bucket, Mode mode) {
    modes.put(bucket, mode);
  }

  /**
   * Makes the next write to {@code bucket} answer with {@code status} and S3 error {@code code},
   * before or after applying it.
   */
  void failNextWrite(String bucket, Phase phase, int status, String code) {
    S3Exception answer = (S3Exception) S3Exception.builder()
        .statusCode(status)
        .message("injected " + code)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage("injected " + code).build())
        .build();
    Deque<WriteFault> queue = faults.computeIfAbsent(bucket, b -> new ArrayDeque<>());
    synchronized (queue) {
      queue.add(new WriteFault(phase, answer));
    }
  }

  /** Takes the next injected fault of {@code bucket} if it strikes in {@code phase}. */
  Optional<S3Exception> takeWriteFault(String bucket, Phase phase) {
    Deque<WriteFault> queue = faults.get(bucket);
    if (queue == null) {
      return Optional.empty();
    }
    synchronized (queue) {
      WriteFault next = queue.peek();
      if (next == null || next.phase() != phase) {
        return Optional.empty();
      }
      queue.remove();
      return Optional.of(next.answer());
    }
  }

  /**
   * Starts logging every object the server stores in, deletes from or refuses to change in {@code
   * bucket}, keeping the bytes and metadata stored at the keys {@code keepBodies} accepts.
   *
   * @throws IllegalStateException if the bucket is already being logged
   */
  ServerObjectLog record(String bucket, Predicate<String> keepBodies) {
    ServerObjectLog log = new ServerObjectLog(keepBodies);
    if (logs.putIfAbsent(bucket, log) != null) {
      throw new IllegalStateException("Cannot record the writes to bucket " + bucket + ": they are recorded already");
    }
    return log;
  }

  /** Returns the log of {@code bucket}, if it is being logged. */
  Optional<ServerObjectLog> log(String bucket) {
    return Optional.ofNullable(logs.get(bucket));
  }

  /** Forgets everything about {@code bucket}. */
  void forget(String bucket) {
    modes.remove(bucket);
    faults.remove(bucket);
    logs.remove(bucket);
  }
}
