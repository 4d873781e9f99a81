package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finishes the swaps interrupted on this checkout, and sweeps staging nobody will finish. Run under
 * the pulled-extensions lock, before every install or removal.
 *
 * <p>Every journal under {@code pulledRoot/.tierlock-staging/<id>/} whose owner is not in flight in
 * this process ({@link OwnerIds}; no pid heuristics) is judged: one that cannot be read or whose
 * paths are not exactly those derived from its name, its staging id and the layout, or whose
 * lockfile is not one of those given ({@link JournalCheck}), is left untouched and reported, and
 * {@link #requireJudged} then refuses its extension. Otherwise it is rolled forward iff it reached
 * swapped, its layout is the swapped one, and the lockfile pins its new checksum and the live
 * manifest has the new digest (for a removal: no entry is pinned); else it is rolled back root by
 * root from the staging layout ({@link Reversal}). Recovery only renames and deletes staging; it
 * never writes the lockfile.
 *
 * <p>Staging without a journal (a staging directory, the preparation's {@code prepared-*}, a bundle
 * root's {@code .tierlock-staging-<id>} sibling for the names given) is deleted once its directory
 * was last modified more than {@link #SWEEP_AGE} ago by the injected clock; younger, it is left.
 *
 * <p>Thread-safe in itself; callers serialize passes with the pulled-extensions lock.
 */
final class Recovery {

  /** How old journal-less staging must be to be swept. */
  static final Duration SWEEP_AGE = Duration.ofHours(1);

  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  private final ExtensionLayout layout;
  private final Clock clock;
  private final Set<Path> lockfilePaths;
  private final OwnerIds owners;
  private final SwapBoundary hook;

  /**
   * Creates a recovery.
   *
   * @param layout where the roots live
   * @param clock the clock of the sweep
   * @param lockfilePaths the resolved lockfile paths a journal may name, matched exactly
   * @param owners the owners in flight in this process, whose journals are left alone
   * @param hook called at each rollback boundary ({@link SwapBoundary#NONE} in production)
   */
  Recovery(ExtensionLayout layout, Clock clock, Set<Path> lockfilePaths, OwnerIds owners, SwapBoundary hook) {
    this.layout = Objects.requireNonNull(layout, "layout");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.lockfilePaths = Set.copyOf(lockfilePaths);
    this.owners = Objects.requireNonNull(owners, "owners");
    this.hook = Objects.requireNonNull(hook, "hook");
  }

  /**
   * Runs one pass.
   *
   * @param pinnedChecksum the shared lockfile's checksum of a name; empty when it has no entry or the
   *     entry no checksum
   * @param known the names the lockfile has, whose bundle roots' journal-less staging is swept
   * @return what the pass did; never throws for what it finds (a failure to act is reported in {@link
   *     RecoveryReport#left})
   */
  RecoveryReport recover(Function<ExtensionName, Optional<String>> pinnedChecksum, Set<ExtensionName> known) {
    return recoverAgainst(name -> pinnedChecksum.apply(name).map(c -> new Pin(Optional.of(c), Optional.empty())),
        known);
  }

  /**
   * What the lockfile holds for a name, as recovery judges it.
   *
   * @param checksum the entry's archive checksum, if it has one
   * @param filesChecksum the entry's digest of its files, if it records one
   */
  record Pin(Optional<String> checksum, Optional<String> filesChecksum) {

    /** Returns the pin of {@code entry}. */
    static Pin of(LockfileEntry entry) {
      return new Pin(entry.checksum(), entry.filesChecksum());
    }
  }

  /**
   * Runs one pass against the lockfile's entries: an install rolls forward when its entry pins the
   * new checksum, or, written without one (a release whose registry stated none), records the
   * digest of exactly the files now live; a removal when the name has no entry at all.
   *
   * @param entries the lockfile's entry of a name, as a {@link Pin}; empty when it has none
   * @param known the names the lockfile has, whose bundle roots' journal-less staging is swept
   * @return what the pass did; never throws for what it finds
   */
  RecoveryReport recoverAgainst(Function<ExtensionName, Optional<Pin>> entries, Set<ExtensionName> known) {
    Pass pass = new Pass(entries);
    Set<ExtensionName> names = new TreeSet<>(known);
    Path stagingRoot = Roots.stagingRoot(layout);
    for (Path entry : list(stagingRoot, "")) {
      String id = entry.getFileName().toString();
      Path journal = entry.resolve(StagingPaths.JOURNAL);
      if (id.startsWith(StagingPaths.PREPARED_PREFIX)) {
        pass.sweepIfOld(entry);
      } else if (SwapPlan.isUuid(id) && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
        if (SwapFiles.exists(journal)) {
          pass.judge(id, journal).ifPresent(names::add);
        } else {
          pass.sweepIfOld(entry);
        }
      }
    }
    for (ExtensionName name : names) {
      Set<Path> parents = new TreeSet<>();
      for (ExtensionLayout.BundleRoot bundle : layout.bundleRoots(name)) {
        parents.add(bundle.live().getParent());
      }
      for (Path parent : parents) {
        for (Path entry : list(parent, StagingPaths.BUNDLE_PREFIX)) {
          String id = entry.getFileName().toString().substring(StagingPaths.BUNDLE_PREFIX.length());
          if (SwapPlan.isUuid(id) && !SwapFiles.exists(StagingPaths.journal(layout, id))) {
            pass.sweepIfOld(entry);
          }
        }
      }
    }
    return new RecoveryReport(pass.forward, pass.back, pass.swept, pass.left);
  }

  /**
   * Refuses {@code name} when a pass left a journal of it, or one whose extension it could not read.
   *
   * @throws InstallException ({@code install_journal_invalid}) the journal left
   */
  static void requireJudged(RecoveryReport report, ExtensionName name) {
    for (InstallException left : report.left()) {
      if (left.extension().equals(name.value()) || !ExtensionName.isValid(left.extension())) {
        throw left;
      }
    }
  }

  private static List<Path> list(Path dir, String prefix) {
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, entry -> entry.getFileName().toString()
        .startsWith(prefix))) {
      stream.forEach(entries::add);
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      LOG.warn("Cannot list {} for interrupted installs; it is looked at again next time", dir, e);
    }
    entries.sort(null);
    return entries;
  }

  /** What one pass found and did. */
  private final class Pass {
    private final Function<ExtensionName, Optional<Pin>> pinned;
    private final List<ExtensionName> forward = new ArrayList<>();
    private final List<ExtensionName> back = new ArrayList<>();
    private final List<Path> swept = new ArrayList<>();
    private final List<InstallException> left = new ArrayList<>();
    private final Instant now = clock.instant();

    Pass(Function<ExtensionName, Optional<Pin>> pinned) {
      this.pinned = pinned;
    }

    /** Judges and finishes the journal of staging {@code id}; returns its extension when it could be read. */
    Optional<ExtensionName> judge(String id, Path file) {
      InstallJournal journal;
      try {
        journal = InstallJournalCodec.read(file);
      } catch (InstallException e) {
        left.add(e);
        return Optional.empty();
      } catch (IOException e) {
        left.add(InstallException.journalInvalid("(unknown)", file, "it cannot be read: " + e.getMessage(), e));
        return Optional.empty();
      }
      if (owners.isActive(journal.ownerId())) {
        return Optional.of(journal.extension());
      }
      try {
        JournalCheck.require(journal, id, layout, lockfilePaths, file);
      } catch (InstallException e) {
        left.add(e);
        return Optional.of(journal.extension());
      }
      Path pulledRoot = layout.pulledRoot().toAbsolutePath().normalize();
      boolean forwards = false;
      try {
        forwards = rollsForward(journal);
        if (forwards) {
          StagingCleanup.committed(journal, file, pulledRoot, SwapBoundary.NONE);
          forward.add(journal.extension());
        } else {
          Reversal.rollBack(journal, hook);
          StagingCleanup.rolledBack(journal, file, pulledRoot, hook);
          back.add(journal.extension());
        }
      } catch (IOException | RuntimeException e) {
        left.add(InstallException.journalInvalid(journal.extension().value(), file, "rolling it "
            + (forwards ? "forward" : "back") + " failed: " + e.getMessage(), e));
      }
      return Optional.of(journal.extension());
    }

    private boolean rollsForward(InstallJournal journal) throws IOException {
      if (journal.phase() != InstallJournal.Phase.SWAPPED || !Reversal.isSwapped(journal)) {
        return false;
      }
      Optional<Pin> pin = pinned.apply(journal.extension());
      if (journal.isRemoval()) {
        return pin.isEmpty();
      }
      Path manifest = journal.manifest().live();
      if (pin.isEmpty() || !Files.isRegularFile(manifest, LinkOption.NOFOLLOW_LINKS)
          || !FilesDigest.sha256(manifest).equals(journal.newManifestDigest())) {
        return false;
      }
      if (pin.get().checksum().isPresent()) {
        return pin.get().checksum().get().equals(journal.newChecksum());
      }
      // an entry written without a checksum pins no archive: it names these files by their digest
      Optional<String> files = pin.get().filesChecksum();
      return files.isPresent() && files.equals(FilesDigest.of(journal.roots().get(0).live(),
          journal.nestedRoots().stream().map(InstallJournal.Nested::relDir).toList(), layout));
    }

    void sweepIfOld(Path dir) {
      try {
        Instant modified = Files.getLastModifiedTime(dir, LinkOption.NOFOLLOW_LINKS).toInstant();
        if (Duration.between(modified, now).compareTo(SWEEP_AGE) > 0) {
          StagingFiles.delete(dir);
          swept.add(dir);
        }
      } catch (IOException e) {
        LOG.warn("Cannot sweep the staging {}; it is tried again next time", dir, e);
      }
    }
  }
}
