package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Collects the extension archives of a tier by reachability: the one way archives leave a live
 * tier (nothing in the commit path deletes one). {@link #collect} deletes an archive only when all
 * of these hold, each judged on the store's own clock (never this machine's):
 *
 * <ol>
 *   <li>the shared lockfile, read again right before the delete, does not pin it;
 *   <li>no lockfile write changed its pinning within the retention window: its mark ({@code
 *       .tierlock-archives/<name>/<sha256>}, rewritten before every lockfile write that pins the
 *       archive anew or unpins it, after the fetch that write is conditioned on) is absent or older
 *       than the window, so every lockfile version that pinned it was published before the window;
 *   <li>the archive itself is older than the window;
 * </ol>
 *
 * <p>and the delete is conditional on the archive's version as judged. "Now" is the store's time
 * of a small object the collection writes first ({@code .tierlock-gc-clock}); ages are that time
 * minus {@link StoredObject#modified()}. A store that tells no times has nothing collected.
 *
 * <p><b>A writer pinning the archive meanwhile.</b> A store's versions may repeat (an S3 ETag is a
 * digest of the bytes), so an archive's version cannot fence a delete against a writer that pins it
 * again without storing anything (a rollback). The mark does: a writer rewrites it, with a fresh
 * id, before its lockfile write is sent. The collection keeps the archive's bytes, deletes, then
 * reads the lockfile and the mark once more: if either shows the archive pinned or being pinned, it
 * stores the bytes back. A writer whose mark landed after that last read stats the archive before
 * its publish and after it, and stores it again from its own bytes when it is missing. What this
 * rests on: conditional deletes and create-only writes (the self-check), a mark write landing
 * before the lockfile write that follows it, reads that see every write acknowledged before them,
 * and each store's clock being monotone across its writes (a testkit contract case). It rests on
 * no lease, and compares no two machines' clocks. An archive can be missing for a moment while a
 * lockfile pins it only when that writer pins it exactly as the collection deletes it; it is
 * stored back by one of the two before either returns.
 *
 * <p>Thread-safe (stateless); one collection makes its calls one at a time.
 */
public final class ArchiveCollector {

  /** The retention window used when none is given: 7 days. */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

  /** The object whose write tells a collection the store's time. */
  static final String CLOCK = ".tierlock-gc-clock";

  private ArchiveCollector() {}

  /** What a collection decided about one archive. */
  public enum Verdict {
    /** Pinned by the shared lockfile. */
    PINNED,
    /** Its pinning changed within the window (its mark is younger). */
    RECENTLY_PINNED,
    /** Written within the window. */
    RECENT,
    /** The store tells no modification time, so no age can be judged. */
    NO_TIME,
    /** Unreachable and old: a dry run would delete it. */
    COLLECTABLE,
    /** Deleted. */
    DELETED,
    /** Changed, pinned or marked between the judgement and the delete: kept. */
    CHANGED,
    /** Deleted, then found pinned or marked, and stored back. */
    STORED_BACK,
    /** A store call failed: kept (the reason says why). */
    FAILED
  }

  /**
   * One archive as judged.
   *
   * @param archive its tier path
   * @param size its length in bytes
   * @param age how long ago the store last wrote it; empty when the store tells no time
   * @param verdict what the collection decided or did
   */
  public record Judged(TierPath archive, long size, Optional<Duration> age, Verdict verdict) {
    /**
     * Checks the values.
     *
     * @param archive its tier path
     * @param size its length in bytes
     * @param age how long ago the store last wrote it; empty when the store tells no time
     * @param verdict what the collection decided or did
     */
    public Judged {
      Objects.requireNonNull(archive, "archive");
      Objects.requireNonNull(age, "age");
      Objects.requireNonNull(verdict, "verdict");
    }
  }

  /**
   * What one collection found and did.
   *
   * @param storeTime the store's time when it began; empty when the store tells none
   * @param retention the window
   * @param applied whether it deleted (false: a dry run)
   * @param archives every archive of the tier, by key order
   * @param warnings what a reader should know (archives stored back, failures)
   */
  public record Collection(Optional<Instant> storeTime, Duration retention, boolean applied, List<Judged> archives,
      List<String> warnings) {
    /**
     * Copies the lists.
     *
     * @param storeTime the store's time when it began; empty when the store tells none
     * @param retention the window
     * @param applied whether it deleted (false: a dry run)
     * @param archives every archive of the tier, by key order
     * @param warnings what a reader should know (archives stored back, failures)
     */
    public Collection {
      Objects.requireNonNull(storeTime, "storeTime");
      Objects.requireNonNull(retention, "retention");
      archives = List.copyOf(archives);
      warnings = List.copyOf(warnings);
    }

    /**
     * Returns the archives with one verdict.
     *
     * @param verdict the verdict
     * @return those archives, in key order
     */
    public List<Judged> with(Verdict verdict) {
      return archives.stream().filter(j -> j.verdict() == verdict).toList();
    }
  }

  /**
   * Runs one collection over {@code tierlock}'s tier (its namespace), as the class comment says.
   * Takes no lock and never blocks a writer.
   *
   * @param tierlock the checkout whose datastore and namespace are collected; not closed
   * @param retention the window; positive
   * @param apply whether to delete; false judges only (a dry run writes only the clock object)
   * @return what it found and did
   * @throws IllegalArgumentException if {@code retention} is not positive
   * @throws ManagedLockfileUnavailableException if the shared lockfile could not be read for a passing reason
   * @throws LockfileFormatException if the shared lockfile does not parse
   * @throws dev.tierlock.spi.DatastoreException if listing or the clock write fails (nothing was deleted)
   */
  public static Collection collect(Tierlock tierlock, Duration retention, boolean apply) {
    Objects.requireNonNull(tierlock, "tierlock");
    if (retention.isNegative() || retention.isZero()) {
      throw new IllegalArgumentException("Cannot collect with retention " + retention + ": it must be positive");
    }
    return new Run(tierlock, retention, apply).run();
  }

  /** One collection. */
  private static final class Run {
    private final Tierlock tierlock;
    private final Datastore datastore;
    private final ArchiveMarks marks;
    private final Duration retention;
    private final boolean apply;
    private final List<String> warnings = new ArrayList<>();

    Run(Tierlock tierlock, Duration retention, boolean apply) {
      this.tierlock = tierlock;
      this.datastore = tierlock.datastore();
      this.marks = new ArchiveMarks(datastore, tierlock.namespace());
      this.retention = retention;
      this.apply = apply;
    }

    Collection run() {
      Optional<Instant> now = storeTime();
      Map<ObjectKey, StoredObject> markObjects = new HashMap<>();
      for (StoredObject mark : datastore.list(prefix(ArchiveMarks.PREFIX))) {
        markObjects.put(mark.key(), mark);
      }
      Lockfile lockfile = tierlock.snapshot();
      List<Judged> judged = new ArrayList<>();
      for (StoredObject object : datastore.list(prefix(TierPath.ARCHIVES + "/"))) {
        archiveOf(object.key()).ifPresent(archive -> judged.add(judge(archive, object,
            Optional.ofNullable(markObjects.get(marks.key(archive))), lockfile, now)));
      }
      return new Collection(now, retention, apply, judged, warnings);
    }

    private Judged judge(TierPath archive, StoredObject object, Optional<StoredObject> mark, Lockfile lockfile,
        Optional<Instant> now) {
      Optional<Duration> age = now.flatMap(t -> object.modified().map(m -> Duration.between(m, t)));
      Verdict verdict;
      if (CommitRun.pins(lockfile, archive)) {
        verdict = Verdict.PINNED;
      } else if (age.isEmpty() || mark.isPresent() && mark.get().modified().isEmpty()) {
        verdict = Verdict.NO_TIME;
      } else if (age.get().compareTo(retention) < 0) {
        verdict = Verdict.RECENT;
      } else if (mark.isPresent() && Duration.between(mark.get().modified().orElseThrow(), now.orElseThrow())
          .compareTo(retention) < 0) {
        verdict = Verdict.RECENTLY_PINNED;
      } else if (!apply) {
        verdict = Verdict.COLLECTABLE;
      } else {
        verdict = delete(archive, object, mark);
      }
      return new Judged(archive, object.size(), age, verdict);
    }

    /** Deletes one archive judged collectable, as the class comment says. */
    private Verdict delete(TierPath archive, StoredObject judged, Optional<StoredObject> mark) {
      ObjectKey key = tierlock.namespace().key(archive);
      Path copy = null;
      try {
        copy = Files.createTempFile("tierlock-gc-", ".tar.gz");
        if (!keep(key, judged, copy)) {
          return Verdict.CHANGED;
        }
        if (pinnedOrMarked(archive, mark)) {
          return Verdict.CHANGED;
        }
        DeleteResult result = datastore.delete(key, WriteCondition.mustMatch(judged.version()));
        if (result != DeleteResult.DELETED) {
          return Verdict.CHANGED;
        }
        if (pinnedOrMarked(archive, mark)) {
          WriteResult back = datastore.write(key, ObjectBody.of(copy), WriteCondition.mustNotExist(),
              judged.metadata());
          warnings.add("Stored " + archive + " back in " + datastore.describe() + ": a writer pinned it while it"
              + " was being collected" + (back instanceof WriteResult.Written ? "" : " (the writer had stored it)"));
          return Verdict.STORED_BACK;
        }
        mark.ifPresent(m -> datastore.delete(m.key(), WriteCondition.mustMatch(m.version())));
        return Verdict.DELETED;
      } catch (IOException e) {
        warnings.add("Kept " + archive + ": cannot keep a copy of it while it is collected: " + e.getMessage());
        return Verdict.FAILED;
      } catch (TierlockException | UncheckedIOException e) {
        warnings.add("Kept " + archive + " (or left it as it was): " + e.getMessage());
        return Verdict.FAILED;
      } finally {
        if (copy != null) {
          try {
            Files.deleteIfExists(copy);
          } catch (IOException e) {
            warnings.add("Cannot remove the temporary copy " + copy + ": " + e.getMessage());
          }
        }
      }
    }

    /** Copies the archive's bytes to {@code copy}; false when it changed since it was judged. */
    private boolean keep(ObjectKey key, StoredObject judged, Path copy) throws IOException {
      Optional<ObjectStream> opened = datastore.openStream(key);
      if (opened.isEmpty()) {
        return false;
      }
      try (ObjectStream stream = opened.get(); InputStream in = stream.stream()) {
        if (!stream.object().version().equals(judged.version())) {
          return false;
        }
        Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
      }
      return Files.size(copy) == judged.size();
    }

    /** Reads the lockfile and the mark again: pinned now, or a mark other than the one judged. */
    private boolean pinnedOrMarked(TierPath archive, Optional<StoredObject> judged) {
      if (CommitRun.pins(tierlock.snapshot(), archive)) {
        return true;
      }
      Optional<StoredObject> now = marks.stat(archive);
      return !now.map(StoredObject::version).equals(judged.map(StoredObject::version));
    }

    /** Writes the clock object and returns the store's time of that write; empty when it tells none. */
    private Optional<Instant> storeTime() {
      ObjectKey key = tierlock.namespace().rootKey(CLOCK);
      byte[] body = (tierlock.environment().nonces().get() + "\n").getBytes(StandardCharsets.UTF_8);
      datastore.write(key, ObjectBody.of(body), WriteCondition.none(), ObjectMetadata.EMPTY);
      return datastore.stat(key).flatMap(StoredObject::modified);
    }

    private String prefix(String under) {
      return tierlock.namespace().name().map(n -> n + "/").orElse("") + under;
    }

    private Optional<TierPath> archiveOf(ObjectKey key) {
      String value = key.value().substring(prefix("").length());
      try {
        TierPath path = TierPath.of(value);
        return path.archiveOf().isPresent() ? Optional.of(path) : Optional.empty();
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }
  }
}
