package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Tierlock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Where one extension of a checkout stands against the shared lockfile, as {@link
 * Converger#status()} sees it.
 *
 * @param name the extension
 * @param pinned the version the lockfile pins, empty when it no longer has the extension
 * @param installed the version on disk, empty when it is not installed
 * @param state where it stands
 * @param nextAttempt when the next pass retries it ({@link State#PENDING} only)
 * @param reason why it is pending or unrestorable, or what differs; and where local edits a
 *     restore replaced were kept, while that copy is there
 */
public record ConvergeStatus(ExtensionName name, Optional<String> pinned, Optional<String> installed, State state,
    Optional<Instant> nextAttempt, Optional<String> reason) {

  /** Where an extension stands. */
  public enum State {
    /** Installed as pinned, and verified by a pass. */
    VERIFIED,
    /** Installed at the pinned version, not verified by a pass yet. */
    UNVERIFIED,
    /** Installed at the pinned version with files that differ from the pin (edited locally, kept). */
    EDITED,
    /** Not installed, or at another version: the next pass that is due restores it. */
    OUT_OF_DATE,
    /** A restore failed for a passing reason; retried at {@code nextAttempt}. */
    PENDING,
    /** Cannot be restored until its entry changes. */
    UNRESTORABLE,
    /** On disk and known to convergence, but no longer in the lockfile: the next pass removes it. */
    NOT_PINNED
  }

  /**
   * Validates it.
   *
   * @param name the extension
   * @param pinned the version the lockfile pins, empty when it no longer has the extension
   * @param installed the version on disk, empty when it is not installed
   * @param state where it stands
   * @param nextAttempt when the next pass retries it ({@link State#PENDING} only)
   * @param reason why it is pending or unrestorable, or what differs; and where local edits a
   *     restore replaced were kept, while that copy is there
   */
  public ConvergeStatus {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(pinned, "pinned");
    Objects.requireNonNull(installed, "installed");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(nextAttempt, "nextAttempt");
    Objects.requireNonNull(reason, "reason");
  }

  static List<ConvergeStatus> of(Converger converger, ConvergeWork steps, Tierlock tierlock) {
    Lockfile shared = tierlock.read().lockfile();
    Lockfile view = tierlock.transaction().pending().map(p -> p.delta().applyTo(shared)).orElse(shared);
    ConvergenceState state = converger.loadState(new ArrayList<>())
        .filter(s -> s.base().equals(converger.base())).orElse(ConvergenceState.fresh(converger.base(), 0));
    TreeSet<ExtensionName> names = new TreeSet<>(view.names());
    names.addAll(state.records().keySet());
    List<ConvergeStatus> out = new ArrayList<>();
    for (ExtensionName name : names) {
      Optional<LockfileEntry> entry = view.entry(name);
      ConvergeWork.LocalFiles files = steps.inspect(name, entry, view);
      Optional<ConvergenceState.Record> record = state.record(name);
      if (entry.isEmpty()) {
        if (files.version().isPresent()) {
          out.add(new ConvergeStatus(name, Optional.empty(), files.version(), State.NOT_PINNED, Optional.empty(),
              Optional.of("no longer in the lockfile")));
        }
        continue;
      }
      LockfileEntry e = entry.get();
      String identity = ConvergePass.identity(e);
      Optional<ConvergenceState.Record> current = record.filter(r -> r.entry().equals(identity));
      if (current.isPresent() && current.get().unrestorable() != null) {
        ConvergenceState.Blocked b = current.get().unrestorable();
        out.add(new ConvergeStatus(name, Optional.of(e.version()), files.version(), State.UNRESTORABLE,
            Optional.empty(), Optional.of(b.reason() + ": " + b.detail())));
        continue;
      }
      if (current.isPresent() && current.get().retry() != null) {
        ConvergenceState.Retry r = current.get().retry();
        out.add(new ConvergeStatus(name, Optional.of(e.version()), files.version(), State.PENDING,
            Optional.of(r.next()), Optional.of("attempt " + r.attempts() + ": " + r.reason())));
        continue;
      }
      boolean present = files.version().isPresent() && files.missing().isEmpty();
      boolean versionOk = present && (!ConvergePass.isExact(e.version()) || files.version().get().equals(e.version()));
      boolean digestOk = ConvergePlan.matches(e, files, current.orElse(null));
      State s;
      String why = null;
      if (!versionOk) {
        s = State.OUT_OF_DATE;
        why = files.version().isEmpty() ? "not installed"
            : !files.missing().isEmpty() ? files.missing().size() + " files missing" : "installed " + files.version().get();
      } else if (!digestOk) {
        s = State.EDITED;
        why = "files differ from the pinned ones";
      } else if (current.isPresent() && e.checksum().orElse("").equals(current.get().verified())) {
        s = State.VERIFIED;
      } else {
        s = State.UNVERIFIED;
      }
      String kept = current.map(ConvergenceState.Record::keptAt).filter(ConvergeStatus::isDirectory)
          .map(k -> "local edits kept at " + k).orElse(null);
      why = why == null ? kept : kept == null ? why : why + "; " + kept;
      out.add(new ConvergeStatus(name, Optional.of(e.version()), files.version(), s, Optional.empty(),
          Optional.ofNullable(why)));
    }
    return out;
  }

  private static boolean isDirectory(String path) {
    try {
      return Files.isDirectory(Path.of(path));
    } catch (java.nio.file.InvalidPathException e) {
      return false;
    }
  }
}
