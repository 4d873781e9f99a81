package dev.tierlock;

import dev.tierlock.spi.DatastoreIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The checkout's durable record of a {@link Commit} not known to be in the shared lockfile
 * ({@value #FILE_NAME} in the state directory; never synced), and the only writer of it: {@link
 * #record} before every lockfile write and whenever a commit's standing changes, {@link #settle}
 * once it is published (or already in the shared lockfile), {@link #discard} when the caller drops
 * it), {@link #read} by the next run. A record is rewritten in place and forced to disk ({@link
 * PendingFile}: one {@code fdatasync}, no rename; the directory is forced only when the file is
 * created), and a torn write leaves the previous record readable, so a process that dies at any
 * point leaves what the next run needs: the change, the entries it was
 * made on (so a replay never reverts a peer), the archives to delete once it is published, the
 * write in flight (judged by the lineage) and, once its landing cannot be proven, that verdict.
 *
 * <p>The record is bound to one lockfile of one datastore ({@link PendingCodec}): a record that
 * names another lockfile or datastore (a checkout pointed elsewhere since) is unreadable here,
 * never published into the wrong lockfile. Not thread-safe: callers hold the checkout's
 * transaction lock.
 */
final class PendingRecord {

  /** The record's file name in the state directory. */
  static final String FILE_NAME = "managed-config-lockfile-unpublished";

  private final Path path;
  private final PendingFile file;
  private final PendingCodec codec;
  private final @Nullable PendingRecord unbound;

  /**
   * A record of the lockfile {@code namespace} names in {@code datastore}: {@code <state>/}{@value
   * #FILE_NAME} without a namespace, {@code <state>/namespaces/<ns>/}{@value #FILE_NAME} with one,
   * so a checkout used with two namespaces keeps one record for each.
   */
  PendingRecord(Path stateDirectory, Namespace namespace, DatastoreIdentity datastore) {
    Path state = stateDirectory.toAbsolutePath().normalize();
    this.path = namespace.name().map(n -> state.resolve("namespaces").resolve(n)).orElse(state).resolve(FILE_NAME);
    this.file = new PendingFile(path);
    this.codec = new PendingCodec(namespace.key(TierPath.LOCKFILE).value(), datastore.toString());
    this.unbound = namespace.name().isPresent() ? new PendingRecord(state.resolve(FILE_NAME), datastore) : null;
  }

  /** The record at {@code file} as a checkout without a namespace reads it. */
  private PendingRecord(Path file, DatastoreIdentity datastore) {
    this.path = file;
    this.file = new PendingFile(file);
    this.codec = new PendingCodec(Namespace.NONE.key(TierPath.LOCKFILE).value(), datastore.toString());
    this.unbound = null;
  }

  /** What the file holds. */
  sealed interface Stored {}

  /** No record: nothing is pending. */
  enum None implements Stored { INSTANCE }

  /**
   * A readable record.
   *
   * @param commit the commit it holds
   */
  record Recorded(Commit commit) implements Stored {}

  /**
   * A record that cannot be read.
   *
   * @param reason why
   */
  record Unreadable(String reason) implements Stored {}

  /** Returns the record's file. */
  Path path() {
    return path;
  }

  /** Reads the record; never throws for what the file holds. */
  Stored read() {
    byte[] bytes;
    try {
      PendingFile.Content content = file.read(2 * LockfileCodec.MAX_BYTES);
      if (content == PendingFile.Cleared.INSTANCE) {
        return None.INSTANCE;
      }
      bytes = content instanceof PendingFile.Body body ? body.bytes() : ((PendingFile.Plain) content).bytes();
    } catch (NoSuchFileException e) {
      return None.INSTANCE;
    } catch (PendingFile.TooLarge e) {
      return new Unreadable(e.getMessage());
    } catch (IOException e) {
      return new Unreadable("the file cannot be read: " + e.getMessage());
    }
    try {
      return new Recorded(codec.decode(bytes));
    } catch (IllegalArgumentException | LockfileCodec.EntryProblem e) {
      return new Unreadable(e.getMessage());
    }
  }

  /**
   * Records {@code commit} durably: in place, one {@code fdatasync} ({@link PendingFile}).
   *
   * @throws LocalFileException if it cannot be written; the old record is then unchanged
   */
  void record(Commit commit) {
    try {
      file.write(codec.encode(commit));
    } catch (IOException e) {
      throw new LocalFileException("Cannot write pending-change record " + path + ": " + reason(e), e);
    }
  }

  /**
   * Clears a record whose commit is settled (published, or already in the shared lockfile),
   * without forcing it to disk: a record a power loss brings back is settled again by the next
   * run, by the lineage or by its replay finding nothing left, at no cost but a read. The file
   * stays, saying nothing is pending, so the next record needs no directory fsync.
   *
   * @throws LocalFileException if it cannot be cleared
   */
  void settle() {
    try {
      file.clear(false);
    } catch (IOException e) {
      throw new LocalFileException("Cannot clear pending-change record " + path + ": " + reason(e), e);
    }
  }

  /**
   * Clears the record durably (forced to disk): a record the caller discarded never comes back.
   *
   * @throws LocalFileException if it cannot be cleared
   */
  void discard() {
    try {
      file.clear(true);
    } catch (IOException e) {
      throw new LocalFileException("Cannot clear pending-change record " + path + ": " + reason(e), e);
    }
  }

  /** Returns how a stored record looks to callers, or empty when there is none. */
  Optional<PendingChange> view(Stored stored) {
    if (stored instanceof Recorded recorded) {
      Commit commit = recorded.commit();
      List<String> ids = commit.commitIds();
      PendingChange.State state = commit.unknown() != null ? PendingChange.State.OUTCOME_UNKNOWN
          : !ids.isEmpty() ? PendingChange.State.IN_FLIGHT : PendingChange.State.UNPUBLISHED;
      return Optional.of(new PendingChange(state, commit.delta(), ids.isEmpty() ? null : ids.get(0), commit.unknown(),
          path));
    }
    if (stored instanceof Unreadable unreadable) {
      return Optional.of(new PendingChange(PendingChange.State.UNREADABLE, LockfileDelta.EMPTY, null,
          unreadable.reason(), path));
    }
    return Optional.empty();
  }

  /**
   * Returns, for a record of a namespace, what an earlier Tierlock left at the state directory's
   * root without naming its namespace (before records moved to {@code namespaces/<ns>/}): this
   * record cannot tell whose it is, so it never publishes it, but every run says it is there.
   *
   * @return a notice naming the change and the file, or empty
   */
  Optional<String> unboundNotice() {
    if (unbound == null || !Files.exists(unbound.path)) {
      return Optional.empty();
    }
    if (!(unbound.read() instanceof Recorded recorded) || namesItsLockfile(unbound.path)) {
      return Optional.empty();
    }
    return Optional.of("An earlier Tierlock left a pending change (" + PendingChange.describe(recorded.commit().delta())
        + ") in " + unbound.path + " without naming its namespace; runs with a namespace leave it alone, and a run"
        + " without one publishes it into the lockfile without a namespace; if it was made for this namespace, make it"
        + " again here and discard it there (tierlock pending discard, without --namespace)");
  }

  private static boolean namesItsLockfile(Path file) {
    try {
      return PendingCodec.namesItsLockfile(Files.readAllBytes(file));
    } catch (IOException e) {
      return true;
    }
  }

  /** {@return what went wrong: the message, or the failure's kind when it has none (an interrupt closing the file)} */
  private static String reason(IOException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
