package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The port over a remote datastore (S3, GCS, the fake remote): the shared lockfile is cached under
 * the cache root, laid out like the datastore, and every key is bound to the namespace exactly once
 * through {@link Namespace}. What the last hydrate saw (key, version, digest of the cached bytes) is
 * remembered in the state directory, so a cache that was changed or removed since forces a full
 * read. Thread-safe.
 */
final class RemoteLockfileSyncPort implements ManagedLockfileSyncPort {

  private static final Logger LOG = LoggerFactory.getLogger(RemoteLockfileSyncPort.class);

  private final Datastore datastore;
  private final Namespace namespace;
  private final Path cacheRoot;
  private final Path lockPath;
  private final HydrationRecord seen;
  private final Sleeper sleeper;
  private final Supplier<String> commitIds;
  private final ObjectKey lockfileKey;

  RemoteLockfileSyncPort(Datastore datastore, Namespace namespace, Path cacheRoot, Path stateDirectory, Sleeper sleeper,
      Supplier<String> commitIds) {
    this.datastore = datastore;
    this.namespace = namespace;
    this.cacheRoot = cacheRoot.toAbsolutePath().normalize();
    Path state = stateDirectory.toAbsolutePath().normalize();
    this.lockPath = state.resolve("upstream_extensions.json.lock");
    this.seen = new HydrationRecord(state.resolve("lockfile-hydrated.json"));
    this.sleeper = sleeper;
    this.commitIds = commitIds;
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
  @SuppressWarnings("try") // the lock is held for the block
  public synchronized Optional<ObjectVersion> hydrate() {
    Path local = lockfilePath();
    ReadCondition condition = seen.read()
        .filter(s -> s.key().equals(lockfileKey.value()))
        .filter(s -> HydrationRecord.digestOf(local).map(s.sha256()::equals).orElse(false))
        .map(s -> ReadCondition.ifNoneMatch(s.version()))
        .orElse(ReadCondition.always());
    ReadResult result = datastore.read(lockfileKey, condition);
    if (result instanceof ReadResult.Found found) {
      LockfileCodec.decode(found.bytes(), describe());
      try (LocalFileLock.Held held = LocalFileLock.at(lockPath, local, sleeper).acquire()) {
        AtomicFileWriter.write(local, found.bytes());
      } catch (IOException e) {
        throw new LocalFileException("Cannot write cached lockfile " + local + ": " + e.getMessage(), e);
      }
      ObjectVersion version = found.object().version();
      seen.write(lockfileKey.value(), version, HydrationRecord.sha256(found.bytes()));
      return Optional.of(version);
    }
    if (result instanceof ReadResult.NotModified notModified) {
      return Optional.of(notModified.version());
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
    Path root = realCacheRoot();
    List<Path> createOnlyFiles = new ArrayList<>();
    for (TierPath path : request.createOnly()) {
      createOnlyFiles.add(inside(root, path));
    }
    byte[] lockfileBytes = null;
    if (request.lockfileCondition().isPresent()) {
      Path local = inside(root, TierPath.LOCKFILE);
      try {
        lockfileBytes = Files.readAllBytes(local);
      } catch (IOException e) {
        throw new LocalFileException("Cannot read cached lockfile " + local + ": " + e.getMessage(), e);
      }
      try {
        LockfileCodec.decode(lockfileBytes, local.toString());
      } catch (LockfileFormatException e) {
        throw new PublishRefusedException("Cannot publish " + TierPath.LOCKFILE + ": the local copy does not decode", e);
      }
    }
    String commitId = commitIds.get();
    ObjectMetadata metadata = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, commitId);
    for (int i = 0; i < createOnlyFiles.size(); i++) {
      uploadCreateOnly(namespace.key(request.createOnly().get(i)), createOnlyFiles.get(i), metadata);
    }
    ObjectVersion version = null;
    if (lockfileBytes != null) {
      WriteCondition condition = request.lockfileCondition().orElseThrow();
      Optional<ObjectVersion> written = writeLockfile(lockfileBytes, condition, metadata, commitId);
      if (written.isEmpty()) {
        return PublishOutcome.Conflict.INSTANCE;
      }
      version = written.get();
      seen.write(lockfileKey.value(), version, HydrationRecord.sha256(lockfileBytes));
    }
    return new PublishOutcome.Published(version, commitId, deleteAll(datastore, namespace, request.deletions()));
  }

  /** Writes the lockfile; returns its new version, or empty on a conflict. */
  private Optional<ObjectVersion> writeLockfile(byte[] bytes, WriteCondition condition, ObjectMetadata metadata,
      String commitId) {
    try {
      WriteResult result = datastore.write(lockfileKey, ObjectBody.of(bytes), condition, metadata);
      if (result instanceof WriteResult.Written written) {
        return Optional.of(written.version());
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
      boolean ours = now.flatMap(o -> o.metadata().get(ObjectMetadata.COMMIT_ID)).map(commitId::equals).orElse(false);
      LOG.debug("Lockfile write to {} went unanswered; read-back shows {}", describe(), ours ? "our commit" : "another state");
      return ours ? now.map(StoredObject::version) : Optional.empty();
    }
  }

  private void uploadCreateOnly(ObjectKey key, Path file, ObjectMetadata metadata) {
    ObjectBody body;
    try {
      body = ObjectBody.of(file);
    } catch (IOException e) {
      throw new LocalFileException("Cannot read " + file + " to publish it: " + e.getMessage(), e);
    }
    try {
      datastore.write(key, body, WriteCondition.mustNotExist(), metadata);
    } catch (OutcomeUnknownException unknown) {
      Optional<StoredObject> now;
      try {
        now = datastore.stat(key);
      } catch (RuntimeException readBack) {
        unknown.addSuppressed(readBack);
        throw unknown;
      }
      if (now.isEmpty()) {
        throw unknown;
      }
    }
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

  private Path realCacheRoot() {
    try {
      Files.createDirectories(cacheRoot);
      return cacheRoot.toRealPath();
    } catch (IOException e) {
      throw new LocalFileException("Cannot resolve cache root " + cacheRoot + ": " + e.getMessage(), e);
    }
  }

  /** Returns the real local file of {@code path}, refusing one that resolves outside the cache root. */
  private Path inside(Path realRoot, TierPath path) {
    Path local = namespace.localPath(cacheRoot, path);
    Path real;
    try {
      real = local.toRealPath();
    } catch (NoSuchFileException e) {
      throw new PublishRefusedException("Cannot publish " + path + ": its local file " + local + " does not exist", e);
    } catch (IOException e) {
      throw new LocalFileException("Cannot resolve " + local + " to publish it: " + e.getMessage(), e);
    }
    if (!real.startsWith(realRoot) || real.equals(realRoot) || !Files.isRegularFile(real)) {
      throw new PublishRefusedException("Cannot publish " + path + ": its local file " + local + " resolves to " + real
          + ", which is not a regular file inside the cache root " + realRoot, null);
    }
    if (TierPath.isInternal(realRoot.relativize(real).toString().replace('\\', '/'))) {
      throw new PublishRefusedException("Cannot publish " + path + ": its local file resolves to the internal file " + real, null);
    }
    return real;
  }
}
