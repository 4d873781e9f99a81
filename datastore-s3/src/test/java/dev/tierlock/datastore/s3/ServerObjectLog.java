package dev.tierlock.datastore.s3;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * What the test S3 server did with one bucket's objects while recording, in the order it did it:
 * every stored object (PUT, copy, completed multipart upload), every deletion, every write or
 * delete its store refused, and every object read. Kept server-side, below every client, so that
 * nothing a client does can escape it. Thread-safe.
 */
final class ServerObjectLog {

  /** What happened to a key. */
  enum Kind {
    /** An object was stored at the key. */
    STORED,
    /** The object at the key was deleted. */
    DELETED,
    /**
     * A write or delete of the key was refused by the store (a failed precondition, an absent key);
     * refusals S3Proxy's handler answers before the store sees the request are not seen.
     */
    REFUSED,
    /** The object at the key was read (a GET that reached the store). */
    READ
  }

  /**
   * One event, in server order.
   *
   * @param kind what happened
   * @param key the full S3 key (with the datastore prefix)
   * @param body the stored bytes, for stored keys the log keeps bodies of; empty otherwise
   * @param metadata the stored user metadata, for stored keys the log keeps bodies of; empty otherwise
   * @param detail the S3 error code of a refusal; empty otherwise
   */
  record Event(Kind kind, String key, byte[] body, Map<String, String> metadata, String detail) {
    Event {
      metadata = Map.copyOf(metadata);
    }
  }

  private final Predicate<String> keepBodies;
  private final List<Event> events = new CopyOnWriteArrayList<>();

  /** Starts an empty log that keeps the bytes and metadata of the keys {@code keepBodies} accepts. */
  ServerObjectLog(Predicate<String> keepBodies) {
    this.keepBodies = keepBodies;
  }

  /** Returns whether the server should hand over the bytes of what it stores at {@code key}. */
  boolean keepsBodyOf(String key) {
    return keepBodies.test(key);
  }

  void stored(String key, byte[] body, Map<String, String> metadata) {
    events.add(new Event(Kind.STORED, key, body, metadata, ""));
  }

  void deleted(String key) {
    events.add(new Event(Kind.DELETED, key, new byte[0], Map.of(), ""));
  }

  void refused(String key, String code) {
    events.add(new Event(Kind.REFUSED, key, new byte[0], Map.of(), code));
  }

  void read(String key) {
    events.add(new Event(Kind.READ, key, new byte[0], Map.of(), ""));
  }

  /** Returns every event so far, in server order. */
  List<Event> events() {
    return List.copyOf(events);
  }

  /** Returns the events of {@code kind}, in server order. */
  List<Event> events(Kind kind) {
    return events.stream().filter(e -> e.kind() == kind).toList();
  }

  /** Returns how many events of {@code kind} concern {@code key}. */
  long count(Kind kind, String key) {
    return events.stream().filter(e -> e.kind() == kind && e.key().equals(key)).count();
  }
}
