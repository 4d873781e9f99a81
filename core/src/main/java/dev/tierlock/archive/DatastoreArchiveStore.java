package dev.tierlock.archive;

import dev.tierlock.Namespace;
import dev.tierlock.internal.AtomicFileWriter;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ArchiveStore} over the datastore SPI with a local cache laid out like the tier. Stateless
 * apart from its configuration, so thread-safe; many stores (one per checkout) may share one
 * datastore.
 */
final class DatastoreArchiveStore implements ArchiveStore {

  /** The object metadata entry that records an archive's SHA-256, for operators. */
  static final String DIGEST_METADATA = "tierlock-sha256";

  /** How many conditional writes a store tries before giving up on a key that keeps changing. */
  static final int MAX_WRITE_ATTEMPTS = 3;

  private static final Logger LOG = LoggerFactory.getLogger(ArchiveStore.class);

  private final Datastore datastore;
  private final Namespace namespace;
  private final Path cacheRoot;
  private final ArchiveLimits limits;
  private final Clock clock;
  private final ArchiveCache cache;

  DatastoreArchiveStore(Datastore datastore, Namespace namespace, Path cacheRoot, ArchiveLimits limits, Clock clock) {
    this.datastore = datastore;
    this.namespace = namespace;
    this.cacheRoot = cacheRoot.toAbsolutePath().normalize();
    this.limits = limits;
    this.clock = clock;
    this.cache = new ArchiveCache(this.cacheRoot, limits);
  }

  @Override
  public Optional<ArchiveFile> read(ExtensionArchiveKey key, Duration timeout) {
    ReadCheckpoint deadline = ReadCheckpoint.after(clock, timeout, key);
    deadline.check();
    Path local = cache.path(namespace, key);
    Optional<ArchiveFile> cached = cache.verified(key, local, deadline);
    if (cached.isPresent()) {
      return cached;
    }
    deadline.check();
    Optional<ObjectStream> opened;
    try {
      opened = datastore.openStream(objectKey(key));
    } catch (DatastoreException e) {
      if (Thread.currentThread().isInterrupted()) {
        // a backend that opens a file or connection on an interrupted thread fails the call itself
        throw ArchiveException.cancelled(key.toString(), "read", e);
      }
      throw e;
    }
    if (opened.isEmpty()) {
      return Optional.empty();
    }
    ObjectStream stream = opened.get();
    Throwable failure = null;
    try {
      return Optional.of(download(key, local, stream, deadline));
    } catch (RuntimeException | Error e) {
      failure = e;
      throw e;
    } finally {
      close(key, stream, failure);
    }
  }

  @Override
  public boolean contains(ExtensionArchiveKey key) {
    return datastore.stat(objectKey(key)).isPresent();
  }

  @Override
  public ArchiveChange store(ExtensionArchiveKey key, Path file) {
    long size = stage(key, file);
    return upload(key, cache.path(namespace, key), size);
  }

  @Override
  public ArchiveChange store(ExtensionArchiveKey key, InputStream in) {
    long size = copyIntoCache(key, in, "the caller's stream");
    return upload(key, cache.path(namespace, key), size);
  }

  /** Returns the limits this store applies. */
  ArchiveLimits limits() {
    return limits;
  }

  /** Returns the cache file of {@code key} (which may not exist). */
  Path cachePath(ExtensionArchiveKey key) {
    return cache.path(namespace, key);
  }

  /**
   * Copies {@code file} into the cache, hashing it, and moves it in atomically only if its SHA-256
   * is the key's; writes nothing to the datastore.
   *
   * @return the archive's size
   * @throws ArchiveException ({@code archive_tampered}) if the bytes do not match the key (nothing cached)
   * @throws ArchiveException ({@code archive_limit}) if the file is larger than the compressed cap
   * @throws ArchiveException ({@code archive_io}) if the file or the cache cannot be read or written
   */
  long stage(ExtensionArchiveKey key, Path file) {
    String where = file.toString();
    long size;
    try {
      size = Files.size(file);
    } catch (IOException e) {
      throw ArchiveException.io(key.toString(), "Cannot store archive " + key + " from " + where + ": "
          + e.getMessage(), e);
    }
    if (size > limits.maxCompressedBytes()) {
      throw ArchiveException.limit(key.toString(), ArchiveException.Limit.COMPRESSED_BYTES, limits.maxCompressedBytes(),
          size);
    }
    try (InputStream in = Files.newInputStream(file)) {
      return copyIntoCache(key, in, where);
    } catch (IOException e) {
      throw ArchiveException.io(key.toString(), "Cannot store archive " + key + " from " + where + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * Writes the staged cache file of {@code key} to the datastore create-only, after hashing it again
   * (so bytes changed in the cache since they were staged never travel).
   *
   * @throws ArchiveException ({@code archive_tampered}) if the cache file no longer matches the key (it is removed)
   * @throws ArchiveException ({@code archive_io}) if the cache file is gone or cannot be read
   * @throws dev.tierlock.spi.DatastoreException if the datastore fails
   */
  ArchiveChange storeStaged(ExtensionArchiveKey key) {
    Path local = cache.path(namespace, key);
    VerifyingCopy.Result result;
    try (InputStream in = Files.newInputStream(local, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      result = VerifyingCopy.copy(in, null, limits.maxCompressedBytes(), key.toString(), () -> checkInterrupt(key));
    } catch (VerifyingCopy.SourceException e) {
      throw cache.failure(key, "read the staged", local, (IOException) Objects.requireNonNull(e.getCause()));
    } catch (IOException e) {
      throw cache.failure(key, "read the staged", local, e);
    }
    if (!result.sha256().equals(key.sha256())) {
      cache.remove(key, local);
      throw ArchiveException.tampered(key, result.sha256(), "store", local.toString());
    }
    return upload(key, local, result.size());
  }

  /**
   * Removes the staged cache file of {@code key}, if any.
   *
   * @throws ArchiveException ({@code archive_io}) if it cannot be removed
   */
  void discardStaged(ExtensionArchiveKey key) {
    cache.remove(key, cache.path(namespace, key));
  }

  @Override
  public ArchiveChange delete(ExtensionArchiveKey key) {
    ObjectKey objectKey = objectKey(key);
    Optional<StoredObject> seen = datastore.stat(objectKey);
    ArchiveChange.Outcome outcome;
    if (seen.isEmpty()) {
      outcome = ArchiveChange.Outcome.ABSENT;
    } else {
      DeleteResult result = datastore.delete(objectKey, WriteCondition.mustMatch(seen.get().version()));
      outcome = switch (result) {
        case DELETED -> ArchiveChange.Outcome.DELETED;
        case ABSENT -> ArchiveChange.Outcome.ABSENT;
        case PRECONDITION_FAILED -> ArchiveChange.Outcome.KEPT;
      };
    }
    if (outcome == ArchiveChange.Outcome.KEPT) {
      LOG.info("Kept archive {}: it was stored again while being deleted", key);
    } else {
      cache.remove(key, cache.path(namespace, key));
    }
    return new ArchiveChange(key, outcome,
        outcome == ArchiveChange.Outcome.DELETED ? List.of(key.tierPath()) : List.of());
  }

  private ArchiveFile download(ExtensionArchiveKey key, Path local, ObjectStream stream, ReadCheckpoint deadline) {
    long declared = stream.object().size();
    if (declared > limits.maxCompressedBytes()) {
      throw ArchiveException.limit(key.toString(), ArchiveException.Limit.COMPRESSED_BYTES, limits.maxCompressedBytes(),
          declared);
    }
    Path temp = cache.newTemp(key, local);
    try {
      VerifyingCopy.Result result;
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        result = VerifyingCopy.copy(stream.stream(), channel, limits.maxCompressedBytes(), key.toString(), deadline);
      }
      if (!result.sha256().equals(key.sha256())) {
        throw ArchiveException.tampered(key, result.sha256(), "read", datastore.describe());
      }
      cache.moveInUnforced(temp, local);
      return new ArchiveFile(key, local, result.size(), ArchiveFile.Origin.DATASTORE);
    } catch (VerifyingCopy.SourceException e) {
      if (e.getCause() instanceof ClosedByInterruptException) {
        throw ArchiveException.cancelled(key.toString(), "read", e.getCause());
      }
      throw new DatastoreUnavailableException("Cannot read archive " + key + " from " + datastore.describe()
          + ": the download broke off: " + e.getMessage(), e.getCause());
    } catch (ClosedByInterruptException e) {
      throw ArchiveException.cancelled(key.toString(), "read", e);
    } catch (IOException e) {
      throw cache.failure(key, "cache", local, e);
    } finally {
      cache.deleteTemp(temp);
    }
  }

  /** Copies {@code in} into the cache through a temp file, moved in only if it hashes to the key. */
  private long copyIntoCache(ExtensionArchiveKey key, InputStream in, String where) {
    Path local = cache.path(namespace, key);
    Path temp = cache.newTemp(key, local);
    VerifyingCopy.Result result;
    try {
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        result = VerifyingCopy.copy(in, channel, limits.maxCompressedBytes(), key.toString(), () -> checkInterrupt(key));
        channel.force(true);
      }
      if (!result.sha256().equals(key.sha256())) {
        throw ArchiveException.tampered(key, result.sha256(), "store", where);
      }
      AtomicFileWriter.moveInto(temp, local);
    } catch (VerifyingCopy.SourceException e) {
      throw ArchiveException.io(key.toString(), "Cannot store archive " + key + ": reading " + where + " failed: "
          + e.getMessage(), e.getCause());
    } catch (ClosedByInterruptException e) {
      throw ArchiveException.cancelled(key.toString(), "store", e);
    } catch (IOException e) {
      throw cache.failure(key, "cache", local, e);
    } finally {
      cache.deleteTemp(temp);
    }
    return result.size();
  }

  private ArchiveChange upload(ExtensionArchiveKey key, Path local, long size) {
    return new ArchiveChange(key, publish(key, local, size), List.of(key.tierPath()));
  }

  private static void checkInterrupt(ExtensionArchiveKey key) {
    if (Thread.currentThread().isInterrupted()) {
      throw ArchiveException.cancelled(key.toString(), "store", null);
    }
  }

  /**
   * Writes the verified cache file create-only. An object already there counts as this archive
   * only when its bytes hash to the key's SHA-256 (downloaded and hashed: a same-size object with
   * other bytes, or a stored digest claim, proves nothing); any other object is replaced
   * conditionally on the version that was hashed; a lost answer is resolved the same way.
   */
  private ArchiveChange.Outcome publish(ExtensionArchiveKey key, Path local, long size) {
    ObjectKey objectKey = objectKey(key);
    ObjectBody body;
    try {
      body = ObjectBody.of(local);
    } catch (IOException e) {
      throw cache.failure(key, "upload", local, e);
    }
    ObjectMetadata metadata = ObjectMetadata.of(DIGEST_METADATA, key.sha256());
    WriteCondition condition = WriteCondition.mustNotExist();
    for (int attempt = 1; ; attempt++) {
      OutcomeUnknownException unknown = null;
      try {
        if (datastore.write(objectKey, body, condition, metadata) instanceof WriteResult.Written) {
          return condition instanceof WriteCondition.MustMatch ? ArchiveChange.Outcome.REPLACED
              : ArchiveChange.Outcome.CREATED;
        }
      } catch (OutcomeUnknownException e) {
        unknown = e;
      }
      Optional<StoredObject> existing = hashedIfSameSize(key, objectKey, size);
      if (existing.isPresent() && existing.get().metadata().get(HASHED).filter(key.sha256()::equals).isPresent()) {
        return ArchiveChange.Outcome.ALREADY_PRESENT;
      }
      if (attempt >= MAX_WRITE_ATTEMPTS) {
        if (unknown != null) {
          throw unknown;
        }
        throw new DatastoreUnavailableException("Cannot store archive " + key + " in " + datastore.describe()
            + ": the object kept changing during " + MAX_WRITE_ATTEMPTS + " conditional writes", null);
      }
      if (existing.isPresent()) {
        LOG.warn("Replacing object {} in {}: it holds {} bytes, archive {} has {}", objectKey, datastore.describe(),
            existing.get().size(), key, size);
        condition = WriteCondition.mustMatch(existing.get().version());
      } else {
        condition = WriteCondition.mustNotExist();
      }
    }
  }

  /** Marks, in the {@link StoredObject} {@link #hashedIfSameSize} returns, the SHA-256 its bytes really have. */
  private static final String HASHED = "tierlock-hashed-sha256";

  /**
   * Returns what the store holds at {@code objectKey}: empty when nothing; the object as stat'ed
   * when its size differs from {@code size}; else the object as downloaded, with the SHA-256 its
   * bytes hash to under {@link #HASHED} and the version of exactly the bytes hashed.
   */
  private Optional<StoredObject> hashedIfSameSize(ExtensionArchiveKey key, ObjectKey objectKey, long size) {
    Optional<StoredObject> seen = datastore.stat(objectKey);
    if (seen.isEmpty() || seen.get().size() != size) {
      return seen;
    }
    Optional<ObjectStream> opened = datastore.openStream(objectKey);
    if (opened.isEmpty()) {
      return Optional.empty();
    }
    ObjectStream stream = opened.get();
    Throwable failure = null;
    try {
      VerifyingCopy.Result hashed = VerifyingCopy.copy(stream.stream(), null, limits.maxCompressedBytes(),
          key.toString(), () -> checkInterrupt(key));
      StoredObject object = stream.object();
      return Optional.of(new StoredObject(object.key(), object.version(), object.size(),
          ObjectMetadata.of(HASHED, hashed.sha256()), object.modified().orElse(null)));
    } catch (IOException e) {
      failure = e;
      throw new DatastoreUnavailableException("Cannot check archive " + key + " already in " + datastore.describe()
          + ": reading it back failed: " + e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      failure = e;
      throw e;
    } finally {
      close(key, stream, failure);
    }
  }

  private ObjectKey objectKey(ExtensionArchiveKey key) {
    return namespace.key(key.tierPath());
  }

  private static void close(ExtensionArchiveKey key, ObjectStream stream, @Nullable Throwable failure) {
    try {
      stream.close();
    } catch (IOException e) {
      if (failure != null) {
        failure.addSuppressed(e);
      } else {
        // the bytes were already verified and cached; only the connection's release failed
        LOG.warn("Cannot close the download of archive {}: {}", key, e.toString(), e);
      }
    }
  }
}
