package dev.tierlock.cli;

import dev.tierlock.Lockfile;
import dev.tierlock.LockfileFormatException;
import dev.tierlock.TierPath;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;

/**
 * {@code datastore-reachable}: one read of the shared lockfile: present or absent, its version and
 * size, and whether it parses. It remembers whether the datastore answered, which the checks that
 * need an answering datastore wait on.
 */
final class DatastoreReachableCheck implements DoctorCheck {

  static final String NAME = "datastore-reachable";

  private boolean answered;

  @Override
  public String name() {
    return NAME;
  }

  /** Returns whether the datastore answered the last {@link #run} (an object too large to read counts). */
  boolean answered() {
    return answered;
  }

  @Override
  public DoctorFinding run(DoctorContext doctor) {
    ReadOnlyDatastore store = doctor.datastore();
    ObjectKey key = doctor.namespace().key(TierPath.LOCKFILE);
    String where = store.describe() + " " + key;
    ReadResult read;
    try {
      read = store.read(key, ReadCondition.always(), Lockfile.MAX_BYTES);
    } catch (TierlockException e) {
      boolean tooLarge = e instanceof ObjectTooLargeException;
      answered = tooLarge;
      return DoctorFinding.fail(NAME, e.getMessage(), tooLarge
          ? "inspect the object; Tierlock reads no lockfile over " + Lockfile.MAX_BYTES + " bytes"
          : e instanceof DatastoreAccessDeniedException
              ? "set or fix the credentials and permissions (docs/operator-guide.md)"
              : "retry later; check the network and the endpoint", e.code(), ExitCodes.of(e));
    }
    answered = true;
    if (read instanceof ReadResult.Found found) {
      return present(found, where);
    }
    return DoctorFinding.ok(NAME, "read " + where + ": absent (no lockfile yet; the first write creates it)");
  }

  private static DoctorFinding present(ReadResult.Found found, String where) {
    StoredObject object = found.object();
    String head = "read " + where + ": present, version " + object.version().value() + ", "
        + found.bytes().length + " bytes" + object.metadata().get(ObjectMetadata.COMMIT_ID).map(c -> ", commit " + c)
            .orElse("");
    Lockfile lockfile;
    try {
      lockfile = Lockfile.parse(found.bytes(), where);
    } catch (LockfileFormatException e) {
      return DoctorFinding.fail(NAME, head + ", does not parse: " + e.getMessage(),
          "fix it by hand ('tierlock entries list --json' prints it as stored); Tierlock never overwrites it",
          e.code(), ExitCodes.of(e));
    }
    String entries = lockfile.size() + (lockfile.size() == 1 ? " entry" : " entries");
    if (!lockfile.foreign().isEmpty()) {
      return DoctorFinding.warn(NAME, head + ", parses: " + entries + " and " + lockfile.foreign().size()
          + " member(s) Tierlock cannot edit (" + String.join(", ", lockfile.foreign().stream()
              .map(f -> f.name() + ": " + f.reason()).toList()) + ")",
          "they are kept as they are and a write to them is refused (foreign_entry); fix them by hand",
          "foreign_entry");
    }
    return DoctorFinding.ok(NAME, head + ", parses: " + entries);
  }
}
