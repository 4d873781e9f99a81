package dev.tierlock;

import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnsafeException;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A datastore that proves, once, before its first write, that it honours preconditions; see {@link
 * Datastores#selfChecked}. A pass is also remembered for the whole process, by {@link
 * Datastore#describe()}: {@link Tierlock} trusts it (and a checkout's {@link SelfCheckMarker}) for
 * the guards it builds, so one process checks one datastore once. Thread-safe.
 */
final class SelfCheckedDatastore extends ForwardingDatastore {

  /** The prefix of probe keys. */
  static final String PROBE_PREFIX = ".tierlock-selfcheck/";

  private static final Logger LOG = LoggerFactory.getLogger(SelfCheckedDatastore.class);

  private static final Set<String> PASSED = ConcurrentHashMap.newKeySet();

  private final Datastore delegate;
  private final Object checkLock = new Object();
  private final List<Runnable> onPass = new ArrayList<>();
  private volatile boolean checked;

  SelfCheckedDatastore(Datastore delegate) {
    this.delegate = delegate;
  }

  /**
   * Runs the check now unless it has passed.
   *
   * @throws DatastoreUnsafeException if the store ignored a precondition
   * @throws DatastoreException if the store failed during the check
   */
  void ensureChecked() {
    if (checked) {
      return;
    }
    List<Runnable> listeners;
    synchronized (checkLock) {
      if (checked) {
        return;
      }
      runCheck();
      PASSED.add(delegate.describe());
      listeners = pass();
    }
    listeners.forEach(Runnable::run);
  }

  /** Returns whether the check has passed (or an earlier verdict was accepted). */
  boolean isChecked() {
    return checked;
  }

  /** Returns whether a guard of a datastore described as {@code identity} passed in this process. */
  static boolean passedInThisProcess(String identity) {
    return PASSED.contains(identity);
  }

  /**
   * Takes an earlier verdict (this process's, or a fresh marker's) as this guard's: no check runs,
   * and the listeners waiting for a pass are dropped (they record only checks that ran).
   */
  void acceptVerdict() {
    synchronized (checkLock) {
      pass();
    }
  }

  /**
   * Runs {@code listener} once the check passes (not at all if it has passed already: see {@link
   * #isChecked()}).
   */
  void onPass(Runnable listener) {
    synchronized (checkLock) {
      if (!checked) {
        onPass.add(listener);
      }
    }
  }

  private List<Runnable> pass() {
    checked = true;
    List<Runnable> listeners = List.copyOf(onPass);
    onPass.clear();
    return listeners;
  }

  private void runCheck() {
    ObjectKey probe = ObjectKey.of(PROBE_PREFIX + UUID.randomUUID());
    ObjectVersion current = null;
    try {
      WriteResult first = delegate.write(probe, body("create"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      if (!(first instanceof WriteResult.Written created)) {
        throw unsafe(probe, "a create-only write of a fresh probe key failed its precondition", null);
      }
      current = created.version();
      WriteResult overExisting = delegate.write(probe, body("overwrite"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      if (overExisting instanceof WriteResult.Written written) {
        current = written.version();
        throw unsafe(probe, "a create-only write over an existing object succeeded", null);
      }
      ObjectVersion stale = current;
      WriteResult matching = delegate.write(probe, body("update"), WriteCondition.mustMatch(stale), ObjectMetadata.EMPTY);
      if (!(matching instanceof WriteResult.Written updated)) {
        throw unsafe(probe, "a write conditional on the current version failed its precondition", null);
      }
      current = updated.version();
      if (current.equals(stale)) {
        throw unsafe(probe, "a write with new bytes kept the object's version " + stale, null);
      }
      WriteResult mismatched = delegate.write(probe, body("stale"), WriteCondition.mustMatch(stale), ObjectMetadata.EMPTY);
      if (mismatched instanceof WriteResult.Written written) {
        current = written.version();
        throw unsafe(probe, "a write conditional on a stale version succeeded", null);
      }
    } finally {
      cleanUp(probe, current);
    }
  }

  private void cleanUp(ObjectKey probe, @Nullable ObjectVersion version) {
    if (version == null) {
      return;
    }
    try {
      DeleteResult result = delegate.delete(probe, WriteCondition.mustMatch(version));
      if (result == DeleteResult.PRECONDITION_FAILED) {
        delegate.stat(probe).ifPresent(now -> delegate.delete(probe, WriteCondition.mustMatch(now.version())));
      }
    } catch (DatastoreException e) {
      LOG.warn("Cannot delete self-check probe {} from {}: {}", probe, delegate.describe(), e.getMessage());
    }
  }

  private DatastoreUnsafeException unsafe(ObjectKey probe, String what, @Nullable Throwable cause) {
    return new DatastoreUnsafeException("Cannot write to datastore " + delegate.describe()
        + ": it does not honour write preconditions (" + what + ", probe key " + probe
        + "); Tierlock refuses to write to it", cause);
  }

  private static ObjectBody body(String text) {
    return ObjectBody.of(("tierlock self-check: " + text + "\n").getBytes(StandardCharsets.UTF_8));
  }

  @Override
  protected Datastore delegate() {
    return delegate;
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    ensureChecked();
    return delegate.write(key, body, condition, metadata);
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    ensureChecked();
    return delegate.delete(key, condition);
  }

  @Override
  public String toString() {
    return "SelfChecked[" + delegate + "]";
  }
}
