package dev.tierlock;

import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.OutcomeUnknownException;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The port over a remote datastore (S3, GCS, the fake remote): the shared lockfile is cached under
 * the cache root, laid out like the datastore, and every key is bound to the namespace exactly once
 * through {@link Namespace}. What the last hydrate or publish saw (key, version, lineage, digest and
 * a copy of the bytes; see {@link HydrationRecord}) is remembered in the state directory, so a cache
 * that was changed or removed since forces a full read. Thread-safe.
 */
final class RemoteLockfileSyncPort implements ManagedLockfileSyncPort {

  private static final Logger LOG = LoggerFactory.getLogger(RemoteLockfileSyncPort.class);

  private final Datastore datastore;
  private final Namespace namespace;
  private final Path cacheRoot;
  private final Path lockPath;
  private final HydrationRecord seen;
  private final Sleeper sleeper;
  private final ObjectKey lockfileKey;

  RemoteLockfileSyncPort(Datastore datastore, Namespace namespace, Path cacheRoot, Path stateDirectory, Sleeper sleeper) {
    this.datastore = datastore;
    this.namespace = namespace;
    this.cacheRoot = cacheRoot.toAbsolutePath().normalize();
    Path state = stateDirectory.toAbsolutePath().normalize();
    this.lockPath = state.resolve("upstream_extensions.json.lock");
    this.seen = new HydrationRecord(state);
    this.sleeper = sleeper;
    this.lockfileKey = namespace.key(TierPath.LOCKFILE);
  }

  @Override
  public SyncMode mode() {
    return SyncMode.REMOTE;
  }

  @Override
  public String describe() {
    return datastore.describe() + " " + lockfileKey;
  }

  @Override
  public Path lockfilePath() {
    return namespace.localPath(cacheRoot, TierPath.LOCKFILE);
  }

  @Override
  public Path lockPath() {
    return lockPath;
  }

  @Override
  public Path localPath(TierPath path) {
    return namespace.localPath(cacheRoot, path);
  }

  @Override
  public synchronized Optional<LockfileHead> hydrate() {
    Path local = lockfilePath();
    Optional<HydrationRecord.Seen> last = seen.read()
        .filter(s -> s.key().equals(lockfileKey.value()))
        .filter(s -> HydrationRecord.digestOf(local).map(s.sha256()::equals).orElse(false));
    ReadCondition condition = last.map(s -> ReadCondition.ifNoneMatch(s.head().version())).orElse(ReadCondition.always());
    ReadResult result = datastore.read(lockfileKey, condition, LockfileCodec.MAX_BYTES);
    if (result instanceof ReadResult.Found found) {
      LockfileCodec.decode(found.bytes(), describe());
      LockfileHead head = LockfileHead.of(found.object());
      writeCache(local, found.bytes());
      seen.write(lockfileKey.value(), head, found.bytes());
      return Optional.of(head);
    }
    if (result instanceof ReadResult.NotModified notModified) {
      return Optional.of(new LockfileHead(notModified.version(),
          last.map(s -> s.head().lineage()).orElse(List.of())));
    }
    try (LocalFileLock.Held held = LocalFileLock.at(lockPath, local, sleeper).acquire()) {
      Files.deleteIfExists(local);
    } catch (IOException e) {
      throw new LocalFileException("Cannot remove cached lockfile " + local + ": " + e.getMessage(), e);
    }
    seen.clear();
    return Optional.empty();
  }

  @Override
  public synchronized PublishOutcome publish(PublishRequest request) {
    String commitId = request.commitId().orElse(null);
    Lockfile content = request.lockfile().orElse(null);
    ObjectVersion version = null;
    if (content != null && commitId != null) {
      byte[] bytes = LockfileCodec.encode(content);
      LockfileHead parent = request.parent().orElse(null);
      Optional<Landed> landed = writeLockfile(bytes, parent, commitId);
      if (landed.isEmpty()) {
        return PublishOutcome.Conflict.INSTANCE;
      }
      version = landed.get().version();
      remember(bytes, version == null ? null : headOf(version, commitId, parent));
    }
    return new PublishOutcome.Published(version, commitId, deleteAll(datastore, namespace, request.deletions()));
  }

  /** A lockfile write that landed, with the version it produced when that is still the current one. */
  private record Landed(@Nullable ObjectVersion version) {}

  /**
   * Writes the lockfile conditional on {@code parent}; resolves a lost answer by reading the
   * lineage back ({@link Landing}).
   *
   * @return how it landed, or empty when it did not
   * @throws OutcomeUnknownException if the write went unanswered and reading back did not settle it
   */
  private Optional<Landed> writeLockfile(byte[] bytes, @Nullable LockfileHead parent, String commitId) {
    WriteCondition condition = parent == null ? WriteCondition.mustNotExist() : WriteCondition.mustMatch(parent.version());
    try {
      WriteResult result = datastore.write(lockfileKey, ObjectBody.of(bytes), condition,
          LockfileHead.metadataOf(commitId, parent));
      if (result instanceof WriteResult.Written written) {
        return Optional.of(new Landed(written.version()));
      }
      return Optional.empty();
    } catch (OutcomeUnknownException unknown) {
      Optional<StoredObject> now;
      try {
        now = datastore.stat(lockfileKey);
      } catch (RuntimeException readBack) {
        unknown.addSuppressed(readBack);
        throw unknown;
      }
      LockfileHead head = now.map(LockfileHead::of).orElse(null);
      Landing landing = Landing.of(commitId, parent, head);
      LOG.debug("Lockfile write {} to {} went unanswered; read-back shows {}: {}", commitId, describe(), head, landing);
      return switch (landing) {
        case LANDED -> Optional.of(new Landed(head != null && head.commitId().filter(commitId::equals).isPresent()
            ? head.version() : null));
        case NOT_LANDED -> Optional.empty();
        case UNKNOWN -> throw unknown;
      };
    }
  }

  private static LockfileHead headOf(ObjectVersion version, String commitId, @Nullable LockfileHead parent) {
    return LockfileHead.of(version, LockfileHead.metadataOf(commitId, parent));
  }

  /**
   * Makes the cache hold the published bytes and remembers them with {@code head}, or forgets what
   * was seen when the version is unknown. Best effort: the write landed, so a local failure only
   * costs a full read next time.
   */
  private void remember(byte[] bytes, @Nullable LockfileHead head) {
    try {
      writeCache(lockfilePath(), bytes);
      if (head == null) {
        seen.clear();
      } else {
        seen.write(lockfileKey.value(), head, bytes);
      }
    } catch (LocalFileException | LockfileBusyException e) {
      LOG.warn("Cannot cache the lockfile just published to {}: {}; the next fetch reads it in full", describe(),
          e.getMessage());
      try {
        seen.clear();
      } catch (LocalFileException again) {
        e.addSuppressed(again);
        LOG.warn("Cannot forget the hydration record either: {}", again.getMessage());
      }
    }
  }

  @SuppressWarnings("try") // the lock is held for the block
  private void writeCache(Path local, byte[] bytes) {
    try (LocalFileLock.Held held = LocalFileLock.at(lockPath, local, sleeper).acquire()) {
      AtomicFileWriter.write(local, bytes);
    } catch (IOException e) {
      throw new LocalFileException("Cannot write cached lockfile " + local + ": " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized Optional<Lockfile> lastSeen() {
    return seen.seenBytes(lockfileKey.value()).flatMap(bytes -> {
      try {
        return Optional.of(LockfileCodec.decode(bytes, HydrationRecord.COPY_FILE_NAME));
      } catch (LockfileFormatException e) {
        return Optional.empty();
      }
    });
  }

  /**
   * Deletes tier paths, each conditional on the version just seen; best effort.
   *
   * @return the paths not deleted (changed in between, or the store failed)
   */
  static List<TierPath> deleteAll(Datastore datastore, Namespace namespace, List<TierPath> paths) {
    List<TierPath> notDeleted = new ArrayList<>();
    for (TierPath path : paths) {
      ObjectKey key = namespace.key(path);
      try {
        Optional<StoredObject> now = datastore.stat(key);
        if (now.isPresent()
            && datastore.delete(key, WriteCondition.mustMatch(now.get().version())) == DeleteResult.PRECONDITION_FAILED) {
          notDeleted.add(path);
        }
      } catch (DatastoreException e) {
        LOG.warn("Cannot delete {} from {}: {}", key, datastore.describe(), e.getMessage());
        notDeleted.add(path);
      }
    }
    return notDeleted;
  }
}
