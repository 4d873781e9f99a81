package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import dev.tierlock.testkit.FakeObjectFiles.Entry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The object store behind {@link FakeRemote}: S3/GCS semantics over one directory (layout in {@link
 * FakeObjectFiles}). Under {@link FakeRemote.Versions#GENERATIONS} versions {@code v1, v2, ...}
 * increase strictly across the whole store and are never reused; under {@link
 * FakeRemote.Versions#CONTENT_DIGEST} a version is the quoted MD5 of the bytes, as an S3 ETag. Bodies
 * are read before the store lock is taken (up to 1 MiB into memory, larger ones into a staged file);
 * every precondition is checked and applied under that one lock, so it is atomic whichever the
 * versions. The index lives in memory and is rebuilt from the files when a directory is opened
 * again. Thread-safe.
 */
final class FakeObjectStore implements Datastore {

  private static final int IN_MEMORY_BYTES = 1 << 20;

  private final FakeObjectFiles files;
  private final FakeRemote.Versions versions;
  private final int maxMetadataBytes;
  private final DatastoreIdentity identity;
  private final TreeMap<String, Entry> index;
  private final Set<TrackedStream> openStreams = new LinkedHashSet<>();
  private long lastVersion;
  /** The store's own clock: each write's modification time, never before the last one's. */
  private final java.time.Clock clock;
  private java.time.Instant lastModified;
  private boolean closed;
  private volatile boolean ignorePreconditions;

  private FakeObjectStore(
      FakeObjectFiles files, FakeObjectFiles.Loaded loaded, FakeRemote.Versions versions, int maxMetadataBytes,
      java.time.Clock clock) {
    this.files = files;
    this.clock = clock;
    this.lastModified = loaded.index().values().stream().map(Entry::modified).max(java.time.Instant::compareTo)
        .orElse(java.time.Instant.EPOCH);
    this.versions = versions;
    this.maxMetadataBytes = maxMetadataBytes;
    this.identity = new DatastoreIdentity("fake", UUID.randomUUID().toString(), files.root().toString(), "");
    this.index = loaded.index();
    this.lastVersion = loaded.lastVersion();
  }

  /**
   * Opens the store kept in {@code root}, creating it if needed and loading the objects a previous
   * instance left there (each keeps the version it was written with).
   *
   * @param versions how new writes are versioned
   * @param maxMetadataBytes the most bytes of metadata one write may carry
   * @param clock the store's own clock, which dates each write
   * @throws IllegalStateException if another open store owns the directory
   * @throws DatastoreUnavailableException if the directory cannot be prepared or read
   */
  static FakeObjectStore open(Path root, FakeRemote.Versions versions, int maxMetadataBytes, java.time.Clock clock) {
    Path dir = root.toAbsolutePath().normalize();
    try {
      FakeObjectFiles files = FakeObjectFiles.open(dir);
      try {
        return new FakeObjectStore(files, files.load(), versions, maxMetadataBytes, clock);
      } catch (IOException | RuntimeException e) {
        files.close(0);
        throw e;
      }
    } catch (IOException e) {
      throw new DatastoreUnavailableException("Cannot open fake remote in " + dir + ": " + e, e);
    }
  }

  Path root() {
    return files.root();
  }

  void ignorePreconditions() {
    ignorePreconditions = true;
  }

  /**
   * Returns {@code fake} as scheme, this instance's random id as endpoint and the directory as
   * container: no two instances share it, not even two opened on one directory one after the other.
   */
  @Override
  public DatastoreIdentity identity() {
    return identity;
  }

  @Override
  public String describe() {
    return "fake://" + files.root();
  }

  @Override
  public int maxMetadataBytes() {
    return maxMetadataBytes;
  }

  /** Returns whether versions can come back: true for {@link FakeRemote.Versions#CONTENT_DIGEST}, as S3 ETags. */
  @Override
  public boolean versionsRepeat() {
    return versions == FakeRemote.Versions.CONTENT_DIGEST;
  }

  /**
   * {@inheritDoc}
   *
   * <p>A not-modified read transfers no body, so the bound does not apply to it; otherwise the size
   * the index holds is checked first and the file is read with a cap of {@code maxBytes + 1} bytes.
   */
  @Override
  public synchronized ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException(
          "Cannot read object " + key + " at " + describe() + ": the bound must be positive, got " + maxBytes);
    }
    checkOpen("read object " + key);
    Entry entry = index.get(key.value());
    if (entry == null) {
      return ReadResult.Absent.INSTANCE;
    }
    if (condition instanceof ReadCondition.IfNoneMatch m && m.version().equals(entry.version())) {
      return new ReadResult.NotModified(entry.version());
    }
    String target = "object " + key + " at " + describe();
    if (entry.size() > maxBytes) {
      throw new ObjectTooLargeException(target, entry.size(), maxBytes, null);
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(files.data(entry.number()))) {
      bytes = in.readNBytes((int) Math.min(maxBytes, Integer.MAX_VALUE - 9) + 1);
    } catch (IOException e) {
      throw failure("read object " + key, e);
    }
    if (bytes.length > maxBytes) {
      throw new ObjectTooLargeException(target, -1, maxBytes, null);
    }
    return new ReadResult.Found(entry.toStored(key), bytes);
  }

  @Override
  public synchronized Optional<ObjectStream> openStream(ObjectKey key) {
    checkOpen("download object " + key);
    Entry entry = index.get(key.value());
    if (entry == null) {
      return Optional.empty();
    }
    try {
      TrackedStream stream = new TrackedStream(entry.toStored(key), Files.newInputStream(files.data(entry.number())));
      openStreams.add(stream);
      return Optional.of(stream);
    } catch (IOException e) {
      throw failure("download object " + key, e);
    }
  }

  @Override
  public synchronized Optional<StoredObject> stat(ObjectKey key) {
    checkOpen("stat object " + key);
    return Optional.ofNullable(index.get(key.value())).map(e -> e.toStored(key));
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if the metadata is larger than {@link #maxMetadataBytes()} or
   *     the body yields another length than it declares; nothing is written
   */
  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    checkOpen("write object " + key);
    if (metadata.byteSize() > maxMetadataBytes) {
      throw new IllegalArgumentException("Cannot write object " + key + " at " + describe() + ": its metadata holds "
          + metadata.byteSize() + " bytes of names and values, more than the " + maxMetadataBytes
          + " this store accepts; nothing was written");
    }
    MessageDigest digest = md5();
    try {
      if (body.size() <= IN_MEMORY_BYTES) {
        byte[] bytes;
        try (InputStream in = new DigestInputStream(body.open(), digest)) {
          bytes = in.readNBytes(IN_MEMORY_BYTES + 1);
        }
        checkSize(key, body, bytes.length);
        return commit(key, target -> Files.write(target, bytes), bytes.length, digest, condition, metadata);
      }
      Path staged;
      try (InputStream in = new DigestInputStream(body.open(), digest)) {
        staged = files.stage(in);
      }
      try {
        long size = Files.size(staged);
        checkSize(key, body, size);
        return commit(key, target -> Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE), size, digest,
            condition, metadata);
      } finally {
        Files.deleteIfExists(staged);
      }
    } catch (IOException e) {
      throw failure("write object " + key, e);
    }
  }

  private synchronized WriteResult commit(ObjectKey key, BodyPlacement placement, long size, MessageDigest digest,
      WriteCondition condition, ObjectMetadata metadata) throws IOException {
    checkOpen("write object " + key);
    Entry current = index.get(key.value());
    if (!ignorePreconditions && !holds(condition, current)) {
      return WriteResult.PreconditionFailed.INSTANCE;
    }
    long number = lastVersion + 1;
    ObjectVersion version = switch (versions) {
      case GENERATIONS -> ObjectVersion.of("v" + number);
      case CONTENT_DIGEST -> ObjectVersion.of("\"" + HexFormat.of().formatHex(digest.digest()) + "\"");
    };
    java.time.Instant now = clock.instant();
    lastModified = now.isAfter(lastModified) ? now : lastModified;
    Entry entry = new Entry(number, size, metadata, version, lastModified);
    placement.place(files.data(number));
    files.describe(key, entry);
    lastVersion = number;
    index.put(key.value(), entry);
    if (current != null) {
      files.delete(current.number());
    }
    return new WriteResult.Written(entry.version());
  }

  @Override
  public synchronized DeleteResult delete(ObjectKey key, WriteCondition condition) {
    if (condition instanceof WriteCondition.MustNotExist) {
      throw new IllegalArgumentException("Cannot delete object " + key + " at " + describe()
          + ": mustNotExist is not a valid delete condition");
    }
    checkOpen("delete object " + key);
    Entry current = index.get(key.value());
    if (current == null) {
      return DeleteResult.ABSENT;
    }
    if (!ignorePreconditions && !holds(condition, current)) {
      return DeleteResult.PRECONDITION_FAILED;
    }
    index.remove(key.value());
    files.delete(current.number());
    return DeleteResult.DELETED;
  }

  @Override
  public synchronized List<StoredObject> list(String prefix) {
    ObjectKey.validatePrefix(prefix);
    checkOpen("list prefix \"" + prefix + "\"");
    List<StoredObject> out = new ArrayList<>();
    for (Map.Entry<String, Entry> e : index.tailMap(prefix, true).entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      out.add(e.getValue().toStored(ObjectKey.of(e.getKey())));
    }
    return List.copyOf(out);
  }

  /** Returns every key, sorted. */
  synchronized TreeSet<ObjectKey> keys() {
    checkOpen("list keys");
    TreeSet<ObjectKey> keys = new TreeSet<>();
    index.keySet().forEach(k -> keys.add(ObjectKey.of(k)));
    return keys;
  }

  /** Returns the keys of the downloads opened and not closed yet, in opening order. */
  synchronized List<ObjectKey> openStreamKeys() {
    return openStreams.stream().map(s -> s.object().key()).toList();
  }

  /** Closes open downloads and releases the directory; later calls throw. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (TrackedStream stream : List.copyOf(openStreams)) {
      stream.closeQuietly();
    }
    try {
      files.close(lastVersion);
    } catch (IOException e) {
      throw new DatastoreUnavailableException("Cannot close fake remote in " + files.root() + ": " + e, e);
    }
  }

  private synchronized void forget(TrackedStream stream) {
    openStreams.remove(stream);
  }

  private static boolean holds(WriteCondition condition, @Nullable Entry current) {
    if (condition instanceof WriteCondition.MustNotExist) {
      return current == null;
    }
    if (condition instanceof WriteCondition.MustMatch m) {
      return current != null && m.version().equals(current.version());
    }
    return true;
  }

  private void checkSize(ObjectKey key, ObjectBody body, long actual) {
    if (actual != body.size()) {
      String yielded = actual > IN_MEMORY_BYTES ? "more" : Long.toString(actual);
      throw new IllegalArgumentException("Cannot write object " + key + " at " + describe() + ": the body declares "
          + body.size() + " bytes but yielded " + yielded);
    }
  }

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot version fake remote objects: the JDK lacks MD5", e);
    }
  }

  private synchronized void checkOpen(String action) {
    if (closed) {
      throw new IllegalStateException("Cannot " + action + " at " + describe() + ": the fake remote is closed");
    }
  }

  private DatastoreUnavailableException failure(String action, IOException e) {
    return new DatastoreUnavailableException("Cannot " + action + " at " + describe() + ": " + e, e);
  }

  /** Puts a body's bytes at their final path, under the store lock. */
  @FunctionalInterface
  private interface BodyPlacement {
    void place(Path target) throws IOException;
  }

  /** A download that the store tracks until it is closed. */
  private final class TrackedStream implements ObjectStream {
    private final StoredObject object;
    private final InputStream in;

    TrackedStream(StoredObject object, InputStream in) {
      this.object = object;
      this.in = in;
    }

    @Override
    public StoredObject object() {
      return object;
    }

    @Override
    public InputStream stream() {
      return in;
    }

    @Override
    public void close() throws IOException {
      forget(this);
      in.close();
    }

    void closeQuietly() {
      try {
        close();
      } catch (IOException e) {
        // Closing a local file at shutdown; nothing to recover.
      }
    }
  }
}
