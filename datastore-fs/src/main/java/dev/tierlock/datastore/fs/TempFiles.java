package dev.tierlock.datastore.fs;

import dev.tierlock.LockIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The staging directories of writes in flight, all in the internal directory {@code
 * <root>/.tierlock/tmp/} (created on the first write; on the root's own file system, so moving a
 * staged file over its target, or a staging directory into a key's claim, is a rename), and the
 * sweep that deletes what a writer left behind. A write stages its files in a directory of its own
 * here, which becomes its claim on the key ({@link KeyClaims}); a claim taken over is moved back
 * here under a fresh name and deleted. Nothing is ever staged beside an object, so a writer killed
 * at any point leaves nothing outside the internal directory.
 *
 * <p><b>Names</b> record who made the entry, as the OS-lock registry records a lock's holder:
 * {@code <host>-<pid>-<start>-<uuid>.tmp}, with the first 12 hex digits of the SHA-256 of the
 * writer's host name, its process id, its process start time in epoch milliseconds (or {@code
 * unknown}) and a random UUID. Earlier versions staged plain files under the same names.
 *
 * <p><b>Sweep.</b> An entry of the directory (a file, or a directory with everything in it) is
 * deleted when
 *
 * <ul>
 *   <li>its owner is provably gone: it was made on this host by a process id that no process has
 *       now, or that a process started at another time has now (the id was reused). Checked when a
 *       datastore is opened and by writes. An entry of this very process is never judged so (it
 *       may be another thread's write in flight);
 *   <li>or it is older than {@link #MAX_AGE}, whoever made it (another host, a name not of this
 *       form). Checked by writes only, against the modification time of the staging directory the
 *       write just created: both times come from the file system's own clock (the file server's, on
 *       a network share), so neither clock skew between hosts nor the injected clock plays a part.
 * </ul>
 *
 * A write sweeps when it is the first of this instance, then at most once per {@link
 * #SWEEP_INTERVAL} on the injected clock. The owner test trusts that a pid of this host names the
 * same process here as where it was written, which two pid namespaces sharing one host name break;
 * no guarantee rests on it: a staged file deleted under a writer that is in fact alive (one stalled
 * for over an hour, or in another pid namespace with the same host name) makes that writer's
 * rename fail because its source is gone, which changes nothing, and the writer reports its change
 * refused or busy. Sweeping is best effort: an entry that cannot be deleted (a read-only root) is
 * left for the next sweep and logged at debug level, and no failure of a sweep ever fails the call
 * that ran it. Thread-safe.
 */
final class TempFiles {

  /** The age past which any temp file is stale. */
  static final Duration MAX_AGE = Duration.ofHours(1);

  /** The least time between two sweeps run by writes of one instance. */
  static final Duration SWEEP_INTERVAL = Duration.ofMinutes(10);

  /**
   * Two readings of one process's start time that differ by less than this are the same start:
   * they are derived from the boot time, which a clock adjustment between the readings can shift.
   */
  static final Duration START_TOLERANCE = Duration.ofSeconds(1);

  private static final Logger LOG = LoggerFactory.getLogger(TempFiles.class);

  private static final Pattern NAME = Pattern.compile("([0-9a-f]{12})-([0-9]{1,18})-([0-9]{1,18}|unknown)-"
      + "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.tmp");

  private static final String SUFFIX = ".tmp";

  private final Path directory;
  private final Clock clock;
  private final AtomicReference<Instant> lastSweep = new AtomicReference<>(Instant.MIN);

  /**
   * Creates the temp files of one datastore.
   *
   * @param directory the internal temp directory, {@code <root>/.tierlock/tmp}
   * @param clock decides when writes sweep again
   */
  TempFiles(Path directory, Clock clock) {
    this.directory = directory;
    this.clock = clock;
  }

  /**
   * Returns the name of a temp file written by process {@code pid} of {@code hostname}, started at
   * {@code start} (null when unknown), with the random part {@code id}.
   */
  static String nameOf(String hostname, long pid, @Nullable Instant start, UUID id) {
    return prefixOf(Owner.hostDigest(hostname), pid, start) + id + SUFFIX;
  }

  private static String prefixOf(String hostDigest, long pid, @Nullable Instant start) {
    return hostDigest + "-" + pid + "-" + (start == null ? "unknown" : Long.toString(start.toEpochMilli())) + "-";
  }

  /**
   * Creates a new empty staging directory named for this process, creating the temp directory if
   * it is missing; first sweeps the temp directory if a sweep is due.
   *
   * @throws IOException if the temp directory or the staging directory cannot be created
   */
  Path createDirectory() throws IOException {
    Path staging = fresh();
    Files.createDirectory(staging);
    if (claimSweep()) {
      sweep(staging);
    }
    return staging;
  }

  /**
   * Returns a fresh name in the temp directory, named for this process, creating the temp directory
   * if it is missing; nothing is created at the name.
   *
   * @throws IOException if the temp directory cannot be created
   */
  Path fresh() throws IOException {
    Files.createDirectories(directory);
    return directory.resolve(Owner.SELF.prefix + UUID.randomUUID() + SUFFIX);
  }

  /**
   * Deletes a file, or a directory and everything below it (symbolic links are deleted, never
   * followed); what is already gone is skipped.
   *
   * @throws IOException if something cannot be deleted (what was deleted stays deleted)
   */
  static void deleteTree(Path path) throws IOException {
    if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
      List<Path> children;
      try (Stream<Path> listing = Files.list(path)) {
        children = listing.toList();
      } catch (NoSuchFileException e) {
        return;
      }
      for (Path child : children) {
        deleteTree(child);
      }
    }
    Files.deleteIfExists(path);
  }

  /**
   * Deletes the temp files whose owner is provably gone, without creating anything (run when a
   * datastore is opened; on a read-only root nothing can be deleted, and nothing is).
   *
   * @return how many were deleted
   */
  int sweepOrphans() {
    return sweep(null);
  }

  /**
   * Deletes the temp files whose owner is provably gone and those older than {@link #MAX_AGE} by
   * the file system's clock, read from {@code fresh}, a temp file just created (and kept).
   *
   * @return how many were deleted
   */
  int sweep(@Nullable Path fresh) {
    if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    int deleted = 0;
    try {
      @Nullable FileTime now = fresh == null ? null : Files.getLastModifiedTime(fresh, LinkOption.NOFOLLOW_LINKS);
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
        for (Path entry : entries) {
          Optional<String> reason;
          try {
            reason = entry.equals(fresh) ? Optional.empty() : staleness(entry, now);
          } catch (IOException e) {
            LOG.debug("Cannot judge the temp file {}: {}; the next sweep tries again", entry, e.toString());
            continue;
          }
          if (reason.isPresent() && delete(entry, reason.get())) {
            deleted++;
          }
        }
      }
    } catch (IOException | DirectoryIteratorException | UnsupportedOperationException | SecurityException e) {
      LOG.debug("Cannot sweep the temp files in {}: {}; the next sweep tries again", directory, e.toString());
    }
    return deleted;
  }

  /** Returns why a temp file is stale (an orphan or too old), or empty when it may still be in use. */
  private static Optional<String> staleness(Path entry, @Nullable FileTime now) throws IOException {
    Matcher name = NAME.matcher(entry.getFileName().toString());
    if (name.matches() && !name.group().startsWith(Owner.SELF.prefix) && name.group(1).equals(Owner.SELF.host)
        && Owner.isGone(Long.parseLong(name.group(2)), startOf(name.group(3)))) {
      return Optional.of("its writer, process " + name.group(2) + " on this host, is gone");
    }
    if (now == null) {
      return Optional.empty();
    }
    Duration age;
    try {
      age = Duration.ofMillis(now.toMillis() - Files.getLastModifiedTime(entry, LinkOption.NOFOLLOW_LINKS).toMillis());
    } catch (NoSuchFileException e) {
      return Optional.empty(); // moved in or deleted meanwhile
    }
    return age.compareTo(MAX_AGE) > 0 ? Optional.of("it is " + age + " old") : Optional.empty();
  }

  private static boolean delete(Path entry, String reason) {
    try {
      boolean deleted = Files.exists(entry, LinkOption.NOFOLLOW_LINKS);
      deleteTree(entry);
      if (deleted) {
        LOG.debug("Deleted the stale temp file {}: {}", entry, reason);
      }
      return deleted;
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      LOG.debug("Cannot delete the stale temp file {} ({}): {}", entry, reason, e.toString());
      return false;
    }
  }

  /** Returns whether this call should sweep: the first of this instance, or {@link #SWEEP_INTERVAL} after the last. */
  private boolean claimSweep() {
    Instant now = clock.instant();
    Instant last = lastSweep.get();
    boolean due = last.equals(Instant.MIN) || now.isBefore(last) || !now.isBefore(last.plus(SWEEP_INTERVAL));
    return due && lastSweep.compareAndSet(last, now);
  }

  private static @Nullable Long startOf(String text) {
    return text.equals("unknown") ? null : Long.valueOf(text);
  }

  /** This process as temp file names record it, and whether the writer of another name is gone. */
  private static final class Owner {
    static final Owner SELF = new Owner();

    final String host;
    final String prefix;

    private Owner() {
      this.host = hostDigest(LockIdentity.current().hostname());
      ProcessHandle self = ProcessHandle.current();
      this.prefix = prefixOf(host, self.pid(), self.info().startInstant().orElse(null));
    }

    /**
     * Returns whether the process that wrote a temp file of this host is provably gone: no process
     * has its id, or the one that has it started at another time.
     */
    static boolean isGone(long pid, @Nullable Long startMillis) {
      Optional<ProcessHandle> process = ProcessHandle.of(pid);
      if (process.isEmpty()) {
        return true;
      }
      if (startMillis == null) {
        return false; // the live process with that id may be the writer
      }
      Optional<Instant> start = process.get().info().startInstant();
      return start.isPresent() && Math.abs(start.get().toEpochMilli() - startMillis) >= START_TOLERANCE.toMillis();
    }

    static String hostDigest(String hostname) {
      return Digests.sha256Hex(hostname.getBytes(StandardCharsets.UTF_8)).substring(0, 12);
    }
  }
}
