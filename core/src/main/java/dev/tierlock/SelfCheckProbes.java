package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The probe objects of one {@link SelfCheck}: their names, the ones still in the store, their
 * removal on every path, and the sweep of probes that earlier checks left, each after its tombstone
 * (see {@link SelfCheck} for why). Every probe the check may have written is known here from the
 * moment its first write is sent until a call proves it gone, so that {@link #removeAll()} leaves
 * none behind, whatever failed: by a delete conditional on its version where the store gave one,
 * else (or when the store refuses conditional deletes) by a plain delete of the probe's own unique
 * key. Thread-safe.
 */
final class SelfCheckProbes {

  private static final String PROBE = "probe-";

  private static final String TOMBSTONE = "swept-";

  private static final Logger LOG = LoggerFactory.getLogger(SelfCheckProbes.class);

  private final Datastore store;
  private final Namespace namespace;
  private final Clock clock;

  /** The probes that may be in the store, with the version they were last known to hold. */
  private final Map<ObjectKey, Optional<ObjectVersion>> open = new HashMap<>();

  SelfCheckProbes(Datastore store, Namespace namespace, Clock clock) {
    this.store = store;
    this.namespace = namespace;
    this.clock = clock;
  }

  /** One probe: its key, its tombstone's key, and the epoch millis its name carries. */
  record Probe(ObjectKey key, ObjectKey tombstone, long bornMillis) {}

  /** Returns a fresh probe, known from now on as one that may be in the store. */
  synchronized Probe fresh() {
    long born = clock.millis();
    ObjectKey key = namespace.rootKey(SelfCheck.PREFIX + PROBE + born + "-" + UUID.randomUUID());
    open.put(key, Optional.empty());
    return new Probe(key, tombstoneOf(key), born);
  }

  /** Records that {@code probe} holds {@code version} now. */
  synchronized void holds(Probe probe, ObjectVersion version) {
    open.put(probe.key(), Optional.of(version));
  }

  /** Records that a call proved {@code probe} gone from the store. */
  synchronized void gone(Probe probe) {
    open.remove(probe.key());
  }

  /** Removes every probe that may still be in the store; a failure is only logged (a later check sweeps it). */
  void removeAll() {
    Map<ObjectKey, Optional<ObjectVersion>> left;
    synchronized (this) {
      left = new HashMap<>(open);
      open.clear();
    }
    left.forEach((key, version) -> remove(key, version.orElse(null)));
  }

  /** Removes {@code probe} from the store now. */
  void remove(Probe probe) {
    Optional<ObjectVersion> version;
    synchronized (this) {
      version = open.remove(probe.key());
    }
    if (version != null) {
      remove(probe.key(), version.orElse(null));
    }
  }

  /**
   * Deletes {@code key}: conditional on {@code version} (or on what a stat finds) first, then, if
   * the object is still there or the store refused the conditional delete, unconditionally: the
   * key is this check's own, unique, and no one else writes it.
   */
  private void remove(ObjectKey key, @Nullable ObjectVersion version) {
    try {
      @Nullable ObjectVersion current = version;
      for (int attempt = 0; attempt < 2; attempt++) {
        if (current == null) {
          Optional<StoredObject> now = store.stat(key);
          if (now.isEmpty()) {
            return;
          }
          current = SelfCheck.versionOrNull(now.get());
          if (current == null) {
            break;
          }
        }
        if (store.delete(key, WriteCondition.mustMatch(current)) != DeleteResult.PRECONDITION_FAILED) {
          return;
        }
        current = null;
      }
    } catch (DatastoreException e) {
      LOG.debug("Cannot delete self-check probe {} conditionally ({}); deleting it outright", key, e.getMessage());
    }
    try {
      store.delete(key, WriteCondition.none());
    } catch (DatastoreException e) {
      LOG.warn("Cannot delete self-check probe {} from {}: {}; a later check sweeps it", key, store.describe(),
          e.getMessage());
    }
  }

  /**
   * Deletes tombstones older than {@link SelfCheck#STALE_TOMBSTONE}, then probes older than {@link
   * SelfCheck#STALE_PROBE}, left by checks that never finished (or that are still running, stalled
   * or behind this clock): each probe only after its tombstone is in place. One listing; best effort.
   */
  void sweep() {
    long now = clock.millis();
    try {
      List<StoredObject> listed = store.list(namespace.name().map(n -> n + "/").orElse("") + SelfCheck.PREFIX);
      for (StoredObject tombstone : listed) {
        if (SelfCheck.versionOrNull(tombstone) != null && bornMillis(tombstone.key(), TOMBSTONE)
            .filter(b -> b < now - SelfCheck.STALE_TOMBSTONE.toMillis()).isPresent()) {
          store.delete(tombstone.key(), WriteCondition.mustMatch(tombstone.version()));
        }
      }
      List<StoredObject> stale = new ArrayList<>();
      for (StoredObject probe : listed) {
        if (SelfCheck.versionOrNull(probe) != null
            && bornMillis(probe.key(), PROBE).filter(b -> b < now - SelfCheck.STALE_PROBE.toMillis()).isPresent()) {
          stale.add(probe);
        }
      }
      for (StoredObject probe : stale) {
        // refused means a tombstone is there already: either way the probe's check can tell
        store.write(tombstoneOf(probe.key()), SelfCheck.body("swept " + probe.key().name()),
            WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
        store.delete(probe.key(), WriteCondition.mustMatch(probe.version()));
      }
    } catch (DatastoreException e) {
      LOG.warn("Cannot sweep old self-check probes of {}: {}", store.describe(), e.getMessage());
    }
  }

  /**
   * Returns the exception for a failed proof that a sweep deleting {@code probe} explains: {@link
   * ProbeSwept} when the probe's tombstone is there (removed now) or the probe is older than {@link
   * SelfCheck#STALE_PROBE} by this clock, else the store's {@link DatastoreUnsafeException}. One stat,
   * plus one delete of a tombstone found.
   */
  RuntimeException sweptOrUnsafe(Probe probe, String what) {
    Optional<StoredObject> tombstone = store.stat(probe.tombstone());
    if (tombstone.isPresent()) {
      remove(probe.tombstone(), SelfCheck.versionOrNull(tombstone.get()));
    }
    if (tombstone.isPresent() || clock.millis() - probe.bornMillis() > SelfCheck.STALE_PROBE.toMillis()) {
      return new ProbeSwept("probe key " + probe.key() + " while " + what);
    }
    return SelfCheck.unsafe(store, probe.key(), what);
  }

  /** Returns the epoch millis in the name of {@code key} when it is {@code kind<millis>-<uuid>}. */
  private static Optional<Long> bornMillis(ObjectKey key, String kind) {
    String name = key.name();
    if (!name.startsWith(kind)) {
      return Optional.empty();
    }
    String[] parts = name.substring(kind.length()).split("-", 2);
    return parts.length == 2 && parts[0].matches("[0-9]{1,18}") ? Optional.of(Long.parseLong(parts[0])) : Optional.empty();
  }

  private ObjectKey tombstoneOf(ObjectKey probe) {
    return namespace.rootKey(SelfCheck.PREFIX + TOMBSTONE + probe.name().substring(PROBE.length()));
  }

  /** An attempt a sweep of its probe may have spoiled; its message names the probe and the failed proof. */
  static final class ProbeSwept extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ProbeSwept(String message) {
      super(message, null, false, false);
    }
  }
}
