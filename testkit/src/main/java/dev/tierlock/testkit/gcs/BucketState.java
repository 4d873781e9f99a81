package dev.tierlock.testkit.gcs;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The objects of one bucket: a sorted map from object name to a slot holding the live generation
 * and the lock that makes each check-and-change on that name one step. Slots are never removed, so
 * a slot's lock is the only lock ever used for its name. Thread-safe.
 */
final class BucketState {

  /** GCS lists names in the order of their UTF-8 bytes, which is Unicode code point order. */
  static final Comparator<String> NAME_ORDER = BucketState::compareCodePoints;

  private final String name;
  private final Instant created;
  private final ConcurrentSkipListMap<String, Slot> slots = new ConcurrentSkipListMap<>(NAME_ORDER);
  private volatile PreconditionMode preconditionMode = PreconditionMode.ENFORCED;

  BucketState(String name, Instant created) {
    this.name = name;
    this.created = created;
  }

  /** One object name's live generation (null when absent) and its lock. */
  static final class Slot {
    final ReentrantLock lock = new ReentrantLock();
    volatile @Nullable FakeObject live;
  }

  String name() {
    return name;
  }

  Instant created() {
    return created;
  }

  PreconditionMode preconditionMode() {
    return preconditionMode;
  }

  void preconditionMode(PreconditionMode mode) {
    this.preconditionMode = mode;
  }

  /** Returns the slot of a name, creating it empty on first use. */
  Slot slot(String objectName) {
    return slots.computeIfAbsent(objectName, n -> new Slot());
  }

  @Nullable FakeObject live(String objectName) {
    Slot slot = slots.get(objectName);
    return slot == null ? null : slot.live;
  }

  /** Returns the live objects whose names are at least {@code from}, in name order. */
  List<FakeObject> liveFrom(String from) {
    List<FakeObject> out = new ArrayList<>();
    NavigableMap<String, Slot> tail = slots.tailMap(from, true);
    for (Map.Entry<String, Slot> e : tail.entrySet()) {
      FakeObject live = e.getValue().live;
      if (live != null) {
        out.add(live);
      }
    }
    return out;
  }

  boolean isEmpty() {
    return liveFrom("").isEmpty();
  }

  private static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
