package dev.tierlock.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code state-directory}: the checkout's {@code .swamp}: writable, its lock files, whether its JSON
 * files parse, and temp files that interrupted writes left behind. It runs before anything may
 * create the directory.
 */
final class StateDirectoryCheck implements DoctorCheck {

  static final String NAME = "state-directory";

  /** The checkout's transaction lock file (core's {@code CheckoutLock}). */
  static final String TRANSACTION_LOCK = "transaction.lock";

  /** The lock of the checkout's pulled extensions (core's {@code PulledExtensionsLock}). */
  static final String PULLED_EXTENSIONS_LOCK = "pulled-extensions.lock";

  /** The record of the cached lockfile (core's {@code LockfileCache}). */
  static final String HYDRATED_RECORD = "lockfile-hydrated.json";

  /** Convergence's state, when a convergence has run on this checkout. */
  static final String CONVERGENCE_STATE = "convergence-state.json";

  /** A temp file of an atomic write: {@code .<target>.<uuid>.tmp}. */
  private static final Pattern TEMP_FILE =
      Pattern.compile("^\\..+\\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.tmp$");

  /** How old a temp file must be before it counts as left over (a younger one may be a write in progress). */
  private static final Duration LEFTOVER = Duration.ofHours(1);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public DoctorFinding run(DoctorContext doctor) {
    Path state = doctor.state();
    if (!Files.exists(state, LinkOption.NOFOLLOW_LINKS)) {
      return DoctorFinding.ok(NAME, state + ": none yet (the first command that needs it creates it)");
    }
    if (!Files.isDirectory(state)) {
      return DoctorFinding.fail(NAME, state + " is not a directory", "move it away; Tierlock keeps this checkout's"
          + " locks and pending record there", "local_io", ExitCodes.FAILURE);
    }
    Findings found = new Findings();
    if (!Files.isWritable(state)) {
      found.failures.add("not writable by this user (every transaction on this checkout needs to write its locks and"
          + " records there)");
    } else {
      found.ok.add("writable");
    }
    lockFiles(state, found);
    jsonFiles(state, found);
    tempFiles(doctor, found);
    String detail = state + ": " + String.join(", ", found.ok) + (found.warnings.isEmpty() && found.failures.isEmpty()
        ? "" : "; " + String.join("; ", found.problems()));
    if (!found.failures.isEmpty()) {
      return DoctorFinding.fail(NAME, detail, "fix the state directory's permissions (every user that runs this"
          + " checkout needs to write there)", "local_io", ExitCodes.FAILURE);
    }
    if (!found.warnings.isEmpty()) {
      return DoctorFinding.warn(NAME, detail, "a file that does not parse is ignored or rebuilt; leftover temp files"
          + " and such files are safe to delete while no tierlock runs on this checkout", null);
    }
    return DoctorFinding.ok(NAME, detail);
  }

  /** What the check found, in the order it is printed: what is fine, then failures, then warnings. */
  private static final class Findings {
    final List<String> ok = new ArrayList<>();
    final List<String> warnings = new ArrayList<>();
    final List<String> failures = new ArrayList<>();

    List<String> problems() {
      List<String> all = new ArrayList<>(failures);
      all.addAll(warnings);
      return all;
    }
  }

  private static void lockFiles(Path state, Findings found) {
    List<String> locks = new ArrayList<>();
    for (String name : List.of(TRANSACTION_LOCK, PULLED_EXTENSIONS_LOCK)) {
      Path file = state.resolve(name);
      if (Files.isDirectory(file)) {
        found.failures.add(name + " is a directory, not a lock file");
      } else if (Files.exists(file)) {
        locks.add(name + (Files.isWritable(file) ? "" : " (not writable)"));
        if (!Files.isWritable(file)) {
          found.failures.add(name + " is not writable by this user");
        }
      }
    }
    found.ok.add(locks.isEmpty() ? "no lock files yet" : "lock files " + String.join(", ", locks));
  }

  private static void jsonFiles(Path state, Findings found) {
    for (String name : List.of(SelfCheckVerdictCheck.MARKER, HYDRATED_RECORD, CONVERGENCE_STATE)) {
      Path file = state.resolve(name);
      if (!Files.exists(file)) {
        continue;
      }
      try {
        if (Json.parse(Files.readAllBytes(file)) instanceof Map<?, ?>) {
          found.ok.add(name + " parses");
        } else {
          found.warnings.add(name + " is not a JSON object");
        }
      } catch (IOException | IllegalArgumentException e) {
        found.warnings.add(name + " cannot be read (" + e.getMessage() + ")");
      }
    }
  }

  private static void tempFiles(DoctorContext doctor, Findings found) {
    Path state = doctor.state();
    List<String> leftovers = new ArrayList<>();
    int recent = 0;
    try (Stream<Path> files = Files.walk(state, 8)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (!TEMP_FILE.matcher(file.getFileName().toString()).matches() || !Files.isRegularFile(file)) {
          continue;
        }
        Instant modified = Files.getLastModifiedTime(file).toInstant();
        if (Duration.between(modified, doctor.now()).compareTo(LEFTOVER) > 0) {
          leftovers.add(state.relativize(file) + " (" + doctor.ago(modified) + ")");
        } else {
          recent++;
        }
      }
    } catch (IOException | UncheckedIOException e) {
      found.warnings.add("cannot be listed in full (" + e.getMessage() + ")");
    }
    if (!leftovers.isEmpty()) {
      found.warnings.add(leftovers.size() + " leftover temp file(s) of interrupted writes: "
          + String.join(", ", leftovers));
    }
    if (recent > 0) {
      found.ok.add(recent + " temp file(s) younger than " + LEFTOVER.toMinutes() + " min (a write in progress)");
    }
  }
}
