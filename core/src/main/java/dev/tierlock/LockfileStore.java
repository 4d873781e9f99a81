package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared lockfile in the datastore, as one checkout reads and writes it. {@link #fetch} reads it
 * (a conditional read of exactly its key; not-modified costs no download) in one of three {@link
 * Fetch ways}; {@link #cached()} answers from the checkout's cache with no request, on every store
 * (a warm optimistic commit is then one call); {@link #write} sends a new version conditional on
 * the one it was built on, with a fresh commit id and the parent's lineage in its metadata (after a
 * gap when that lineage was not read with the version, {@link LockfileHead}), and settles a lost
 * answer by reading the lineage back ({@link Landing}). The same code serves every datastore, the filesystem included, so there is one fenced
 * write path and no mode a wrapper could switch. Every key is bound to the namespace exactly once.
 * Thread-safe; a transaction serialises its own calls under the checkout lock.
 *
 * <p>Process-wide state: when this process last sent a write of each lockfile, by store identity
 * and key ({@code LAST_SENT}), so that every checkout and instance in the process keeps to a
 * store's per-object write rate together.
 */
final class LockfileStore {

  private static final Logger LOG = LoggerFactory.getLogger(LockfileStore.class);

  private final Datastore datastore;
  private final Namespace namespace;
  private final ObjectKey key;
  private final LockfileCache cache;
  private static final com.github.benmanes.caffeine.cache.Cache<String, java.time.Instant> LAST_SENT =
      com.github.benmanes.caffeine.cache.Caffeine.newBuilder().maximumSize(1024).build();

  LockfileStore(Datastore datastore, Namespace namespace, Path cacheRoot, Path stateDirectory) {
    this.datastore = datastore;
    this.namespace = namespace;
    this.key = namespace.key(TierPath.LOCKFILE);
    this.cache = new LockfileCache(namespace.localPath(cacheRoot.toAbsolutePath().normalize(), TierPath.LOCKFILE),
        stateDirectory.toAbsolutePath().normalize(), key);
  }

  /**
   * The shared lockfile as fetched: its version with lineage ({@code null} when absent) and content.
   *
   * @param lineageBound whether a write conditioned on {@code head}'s version lands only on an object
   *     with {@code head}'s lineage: true when the head was just read from the store, or when the
   *     store's versions never repeat or bind the metadata ({@link Datastore#versionsBindMetadata()});
   *     false for a cached head on a store whose versions are a digest of the bytes alone (a write
   *     on it then marks a gap in its lineage, {@link LockfileHead})
   */
  record Fetched(@Nullable LockfileHead head, Lockfile lockfile, boolean lineageBound) {

    /** A lockfile whose head was just read from the store, with the metadata it has. */
    Fetched(@Nullable LockfileHead head, Lockfile lockfile) {
      this(head, lockfile, true);
    }
  }

  /** How {@link #fetch} reads. */
  enum Fetch {
    /**
     * For a commit: the head with the metadata it really has (on a store whose versions repeat, a
     * stat first, since a not-modified answer would stand for a stale lineage; then a read when the
     * version changed), kept in the cache.
     */
    EXACT,
    /**
     * One conditional read, kept in the cache; on a store whose versions repeat, a not-modified
     * answer keeps the cached head, whose lineage may be stale: fine for reading, never for judging.
     */
    KEEP,
    /** One conditional read, and nothing written anywhere. */
    PEEK
  }

  /** Returns a description for messages: the datastore and the lockfile's key. */
  String describe() {
    return datastore.describe() + " " + key;
  }

  /** Returns the lockfile's key in the datastore. */
  ObjectKey key() {
    return key;
  }

  /** Returns the checkout's cache of the shared lockfile. */
  LockfileCache cache() {
    return cache;
  }

  /**
   * Reads the shared lockfile.
   *
   * @param how which read, and whether the cache keeps what it read (best effort: a cache that
   *     cannot be written costs a full read next time, never a wrong answer)
   * @throws LockfileFormatException if the shared lockfile does not parse; nothing local changes
   * @throws DatastoreException if the read fails
   */
  Fetched fetch(Fetch how) {
    return fetch(how != Fetch.PEEK, how == Fetch.EXACT);
  }

  /**
   * Returns the lockfile as this checkout last fetched or published it, without a call, when the
   * cache is intact; else empty. A write conditional on the cached version lands only on exactly
   * these bytes (a version stands for its bytes on every store, their digest where versions
   * repeat), so what a change was rebased on is what it replaces. Where versions repeat without
   * binding the metadata, the object with these bytes may carry another lineage (a peer wrote other
   * bytes and then these again): the head is then not {@link Fetched#lineageBound() bound}, and a
   * write on it marks the gap ({@link #write}).
   */
  Optional<Fetched> cached() {
    if (!lineageBound()) {
      // where a version can come back with another lineage (S3: an ETag is a digest of the bytes
      // alone), a write on the cached head could only be judged across a gap: a peer's lost answer
      // would then end unknown, blocking its checkout, instead of proven (measured: two processes on
      // S3Proxy). A stat first keeps every judgement exact, at one more call
      return Optional.empty();
    }
    return cache.current().map(e -> new Fetched(e.head(), e.lockfile(), true));
  }

  /** Returns whether a version of this store stands for one lineage: it never repeats, or binds the metadata. */
  private boolean lineageBound() {
    return !datastore.versionsRepeat() || datastore.versionsBindMetadata();
  }

  private Fetched fetch(boolean keep, boolean exactHead) {
    Optional<LockfileCache.Entry> known = cache.current();
    if (exactHead && known.isPresent() && datastore.versionsRepeat()) {
      // a version that can come back says nothing of the metadata: a peer writing these bytes again
      // brings it back with its own commit, so a not-modified answer would stand for a stale lineage
      Optional<StoredObject> now = datastore.stat(key);
      if (now.isPresent() && now.get().version().equals(known.get().head().version())) {
        LockfileHead head = LockfileHead.of(now.get());
        Lockfile lockfile = known.get().lockfile();
        if (keep && !head.equals(known.get().head())) {
          keepQuietly(() -> cache.keep(lockfile.bytes(), head, lockfile));
        }
        return new Fetched(head, lockfile);
      }
      if (now.isEmpty()) {
        if (keep) {
          keepQuietly(cache::forget);
        }
        return new Fetched(null, Lockfile.EMPTY);
      }
      known = Optional.empty();
    }
    ReadCondition condition = known.map(e -> ReadCondition.ifNoneMatch(e.head().version())).orElse(ReadCondition.always());
    ReadResult result = datastore.read(key, condition, LockfileCodec.MAX_BYTES);
    if (result instanceof ReadResult.Found found) {
      Lockfile lockfile = Lockfile.parse(found.bytes(), describe());
      LockfileHead head = LockfileHead.of(found.object());
      if (keep) {
        keepQuietly(() -> cache.keep(found.bytes(), head, lockfile));
      }
      return new Fetched(head, lockfile);
    }
    if (result instanceof ReadResult.NotModified && known.isPresent()) {
      return new Fetched(known.get().head(), known.get().lockfile(), lineageBound());
    }
    if (result instanceof ReadResult.NotModified) {
      throw new IllegalStateException("Cannot read " + describe() + ": the store answered not-modified to an unconditional read");
    }
    if (keep) {
      keepQuietly(cache::forget);
    }
    return new Fetched(null, Lockfile.EMPTY);
  }

  private void keepQuietly(Runnable step) {
    try {
      step.run();
    } catch (LocalFileException e) {
      LOG.warn("Cannot update the cached lockfile of {}: {}; the next fetch reads it in full", describe(), e.getMessage());
    }
  }

  /**
   * Returns how long to wait at {@code now} before the next lockfile write, so that this checkout's
   * writes keep to the store's {@link Datastore#minWriteInterval()}; zero when they already do.
   */
  java.time.Duration paceAt(java.time.Instant now) {
    java.time.Duration interval = datastore.minWriteInterval();
    java.time.Instant last = interval.isZero() ? null : LAST_SENT.getIfPresent(paceKey());
    if (interval.isZero() || last == null) {
      return java.time.Duration.ZERO;
    }
    java.time.Duration wait = java.time.Duration.between(now, last.plus(interval));
    return wait.isNegative() ? java.time.Duration.ZERO : wait;
  }

  /** Returns the store's {@link Datastore#maxMetadataBytes()}: how much of a lineage its versions carry. */
  int metadataCapacity() {
    return datastore.maxMetadataBytes();
  }

  /** Returns the store's {@link Datastore#minWriteInterval()}. */
  java.time.Duration minWriteInterval() {
    return datastore.minWriteInterval();
  }

  /** Notes that a lockfile write is sent at {@code now}. */
  void sending(java.time.Instant now) {
    if (!datastore.minWriteInterval().isZero()) {
      LAST_SENT.asMap().merge(paceKey(), now, (a, b) -> a.isAfter(b) ? a : b);
    }
  }

  private String paceKey() {
    return datastore.identity() + " " + key;
  }

  /**
   * Returns whether the store holds the object at tier path {@code path} now (one stat).
   *
   * @throws dev.tierlock.spi.DatastoreException if the stat fails
   */
  boolean holds(TierPath path) {
    return datastore.stat(namespace.key(path)).isPresent();
  }

  /**
   * Writes {@code content} as the version after {@code parent}: conditional on {@code parent}'s
   * version (create-only when it is null), carrying {@code commitId} and as much of the parent's
   * lineage as the store's metadata holds, after a gap when the parent's lineage is not {@code
   * lineageBound} ({@link LockfileHead}). An unanswered write is settled by reading the lineage back
   * ({@link Landing#of}). Writes nothing local.
   *
   * <p>Why one call is enough where versions repeat: the write lands only on an object whose
   * version is {@code parent}'s, so on exactly the bytes {@code content} was rebased on; a peer's
   * change since is either in those bytes or was undone by a later peer write, and either way a
   * rebase on a fresh read would have produced these bytes too. What the write cannot know is the
   * lineage it replaces; the gap says so, and every judgement across it is {@link Landing.Unknown}
   * rather than a wrong "not landed".
   *
   * @param lineageBound whether {@code parent}'s lineage is the one an object with its version has
   *     ({@link Fetched#lineageBound()})
   * @return how it ended: {@link Landing.Landed} (with the head it made, when its answer came),
   *     {@link Landing#NOT_LANDED} (refused: a newer lockfile), {@link Landing.NotYet} or {@link
   *     Landing.Unknown} (the answer was lost; the read-back's head)
   * @throws OutcomeUnknownException if the write went unanswered and reading back failed too
   * @throws DatastoreUnsafeException if the store's metadata cannot hold a commit id; nothing is sent
   * @throws DatastoreException if the store failed before the write could have landed
   */
  Landing write(Lockfile content, @Nullable LockfileHead parent, String commitId, boolean lineageBound) {
    byte[] bytes = content.bytes();
    WriteCondition condition = parent == null ? WriteCondition.mustNotExist() : WriteCondition.mustMatch(parent.version());
    ObjectMetadata metadata = commitMetadata(commitId, parent, !lineageBound);
    try {
      WriteResult result = datastore.write(key, ObjectBody.of(bytes), condition, metadata);
      if (result instanceof WriteResult.Written written) {
        return new Landing.Landed(LockfileHead.of(written.version(), metadata));
      }
      return Landing.NOT_LANDED;
    } catch (OutcomeUnknownException unknown) {
      Optional<StoredObject> now;
      try {
        now = datastore.stat(key);
      } catch (RuntimeException readBack) {
        unknown.addSuppressed(readBack);
        throw unknown;
      }
      LockfileHead head = now.map(LockfileHead::of).orElse(null);
      Landing landing = judge(commitId, parent, head);
      LOG.debug("Lockfile write {} to {} went unanswered; read-back shows {}: {}", commitId, describe(), head, landing);
      if (landing instanceof Landing.Landed && head != null && head.commitId().filter(commitId::equals).isPresent()) {
        return new Landing.Landed(head);
      }
      return landing;
    }
  }

  /**
   * Returns the metadata commit {@code commitId} built on {@code parent} carries: its id and as much
   * of the parent's lineage as the store holds, after a gap when {@code gap}. Sends nothing.
   *
   * @throws DatastoreUnsafeException if the store's metadata cannot hold even the commit id: a lost
   *     answer could never be judged there, so nothing is written to it
   */
  ObjectMetadata commitMetadata(String commitId, @Nullable LockfileHead parent, boolean gap) {
    int capacity = datastore.maxMetadataBytes();
    if (!LockfileHead.holdsCommitId(capacity, commitId)) {
      throw new DatastoreUnsafeException("Cannot publish to " + describe() + ": the store's metadata capacity of "
          + capacity + " bytes cannot hold a commit id; without one, a write whose answer is lost could never be"
          + " judged, so Tierlock refuses to write to it", null);
    }
    return LockfileHead.metadataOf(commitId, parent, capacity, gap);
  }

  /**
   * Judges whether commit {@code commitId}, written conditional on {@code parent}, landed, from the
   * shared lockfile {@code now} ({@link Landing}, with what this store's versions prove).
   */
  Landing judge(String commitId, @Nullable LockfileHead parent, @Nullable LockfileHead now) {
    return Landing.of(commitId, parent, now, datastore.versionsRepeat());
  }

  /**
   * Judges the writes of a commit that may have landed ({@code attempt} and {@code priors}) against
   * {@code now}, with what this store's versions prove ({@link Commit#judge}).
   */
  Commit.Judgement judge(Commit.@Nullable Attempt attempt, List<Commit.Prior> priors, @Nullable LockfileHead now) {
    return Commit.judge(attempt, priors, now, datastore.versionsRepeat());
  }

  /**
   * Makes the cache hold {@code content}, just published as {@code head}; never throws.
   *
   * @return a warning when the cache could not be written (the next fetch then reads in full)
   */
  Optional<String> remember(Lockfile content, @Nullable LockfileHead head) {
    try {
      if (head == null) {
        cache.forget();
      } else {
        cache.keep(content.bytes(), head, content);
      }
      return Optional.empty();
    } catch (RuntimeException e) {
      String warning = "Cannot cache the lockfile just published to " + describe() + ": " + e.getMessage()
          + "; the next fetch reads it in full";
      LOG.warn(warning);
      return Optional.of(warning);
    }
  }

  /** {@return the marks of this namespace's archives ({@link ArchiveMarks}), in this store} */
  ArchiveMarks marks() {
    return new ArchiveMarks(datastore, namespace);
  }
}
