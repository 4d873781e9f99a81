package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A datastore that proves, once, before its first write, that it honours preconditions; see {@link
 * Datastores#selfChecked}. Thread-safe.
 */
final class SelfCheckedDatastore implements Datastore {

  /** The prefix of probe keys. */
  static final String PROBE_PREFIX = ".tierlock-selfcheck/";

  private static final Logger LOG = LoggerFactory.getLogger(SelfCheckedDatastore.class);

  private final Datastore delegate;
  private final Object checkLock = new Object();
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
    synchronized (checkLock) {
      if (!checked) {
        runCheck();
        checked = true;
      }
    }
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
  public String describe() {
    return delegate.describe();
  }

  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition) {
    return delegate.read(key, condition);
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    return delegate.openStream(key);
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    return delegate.stat(key);
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
  public List<StoredObject> list(String prefix) {
    return delegate.list(prefix);
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return "SelfChecked[" + delegate + "]";
  }
}
