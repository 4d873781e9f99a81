package dev.tierlock.cli;

import dev.tierlock.Namespace;
import dev.tierlock.Tierlock;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.StoredObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * {@code self-check}: the precondition self-check's verdict that this checkout recorded, proven by
 * one read of the verdict object in the store; with {@code --self-check}, the self-check itself
 * (as {@code tierlock init} runs it).
 */
final class SelfCheckVerdictCheck implements DoctorCheck {

  static final String NAME = "self-check";

  /** The self-check marker's file name in the state directory (core's {@code SelfCheckMarker}). */
  static final String MARKER = "datastore-selfcheck.json";

  /** The self-check's prefix below the namespace (core's {@code SelfCheck}). */
  static final String PREFIX = ".tierlock-selfcheck/";

  /** The verdict object's metadata, and how long a verdict is trusted (core's {@code SelfCheck}). */
  private static final String VERDICT_TOKEN = "tierlock-verdict";
  private static final String VERDICT_CHECKED_AT = "tierlock-checked-at";
  private static final Duration VERDICT_TTL = Duration.ofHours(24);

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public DoctorFinding run(DoctorContext doctor) {
    if (!doctor.selfCheckRequested()) {
      return recorded(doctor);
    }
    Tierlock tierlock;
    try {
      tierlock = doctor.tierlock();
    } catch (TierlockException e) {
      return DoctorFinding.failure(NAME, "Cannot open the checkout " + doctor.checkout(), e, null);
    }
    return runNow(doctor, tierlock);
  }

  /** What the checkout's marker and the store's verdict object say, read-only. */
  private record Verdicts(@Nullable Instant recordedHere, boolean proven, @Nullable Instant inStore,
      @Nullable String markerProblem) {

    boolean freshAt(Instant now) {
      return proven && recordedHere != null && !recordedHere.isAfter(now)
          && Duration.between(recordedHere, now).compareTo(VERDICT_TTL) < 0;
    }
  }

  /** Reads the marker and stats the verdict object: one local read and one datastore call. */
  private static Verdicts verdicts(Datastore store, Namespace namespace, Path state) {
    String storeKey = store.identity() + namespace.name().map(n -> " namespace " + n).orElse("");
    Optional<StoredObject> object = store.stat(namespace.rootKey(PREFIX + "verdict"));
    Instant inStore = object.flatMap(o -> o.metadata().get(VERDICT_CHECKED_AT))
        .map(SelfCheckVerdictCheck::instantOrNull).orElse(null);
    Path marker = state.resolve(MARKER);
    if (!Files.exists(marker)) {
      return new Verdicts(null, false, inStore, "this checkout has recorded no verdict");
    }
    Object parsed;
    try {
      parsed = Json.parse(Files.readString(marker, StandardCharsets.UTF_8));
    } catch (IOException | IllegalArgumentException e) {
      return new Verdicts(null, false, inStore, "this checkout's " + marker + " cannot be read (" + e.getMessage()
          + "); it is ignored");
    }
    if (!(parsed instanceof Map<?, ?> members) || !(members.get("store") instanceof String name)
        || !(members.get("token") instanceof String token) || !(members.get("version") instanceof String version)
        || !(members.get("checkedAt") instanceof String at) || instantOrNull(at) == null) {
      return new Verdicts(null, false, inStore, "this checkout's " + marker + " is not a verdict record; it is ignored");
    }
    if (!name.equals(storeKey)) {
      return new Verdicts(null, false, inStore, "this checkout's verdict names another store (" + name + ")");
    }
    boolean proven = object.isPresent() && object.get().version().value().equals(version)
        && object.get().metadata().get(VERDICT_TOKEN).filter(token::equals).isPresent();
    return new Verdicts(instantOrNull(at), proven, inStore, proven ? null
        : "the store does not hold the verdict object this checkout recorded (another store at the same address,"
            + " or it was deleted or replaced)");
  }

  private static @Nullable Instant instantOrNull(String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static String probes(Namespace namespace) {
    return namespace.name().map(n -> n + "/").orElse("") + PREFIX;
  }

  /** The verdict this checkout recorded and the store holds, without running the check. */
  private static DoctorFinding recorded(DoctorContext doctor) {
    Datastore store = doctor.datastore();
    Instant now = doctor.now();
    Verdicts v;
    try {
      v = verdicts(store, doctor.namespace(), doctor.state());
    } catch (TierlockException e) {
      return DoctorFinding.failure(NAME, "Cannot read the self-check verdict of " + store.describe(), e, null);
    }
    String fullCheck = "runs the full check (it writes and deletes probe objects under " + probes(doctor.namespace())
        + " and leaves a verdict object)";
    String runNow = "'tierlock doctor --self-check' or 'tierlock init' runs it now";
    if (v.proven() && v.recordedHere() != null) {
      if (v.freshAt(now)) {
        return DoctorFinding.ok(NAME, "passed at " + v.recordedHere() + " (" + doctor.ago(v.recordedHere())
            + "), the verdict this checkout recorded, proven by one read of the verdict object; writes trust it until "
            + v.recordedHere().plus(VERDICT_TTL) + " (not run now: --self-check runs it)");
      }
      return DoctorFinding.ok(NAME, "passed at " + v.recordedHere() + " (" + doctor.ago(v.recordedHere()) + "), over "
          + VERDICT_TTL.toHours() + " h ago: the next write " + fullCheck, runNow);
    }
    if (v.inStore() != null) {
      return DoctorFinding.ok(NAME, "passed at " + v.inStore() + " (" + doctor.ago(v.inStore()) + ") from some"
          + " checkout (a verdict object is in the store), but " + v.markerProblem() + ": the next write from this"
          + " checkout " + fullCheck, runNow);
    }
    return DoctorFinding.warn(NAME, "not known: the store holds no verdict object and " + v.markerProblem()
        + "; the first write " + fullCheck + ", and refuses to write to a store that ignores write preconditions",
        runNow, null);
  }

  /** Runs the self-check now, with the datastore's writes let through for it alone. */
  private static DoctorFinding runNow(DoctorContext doctor, Tierlock tierlock) {
    ReadOnlyDatastore store = doctor.datastore();
    boolean writes;
    try {
      writes = !verdicts(store, doctor.namespace(), doctor.state()).freshAt(doctor.now());
    } catch (TierlockException e) {
      writes = true;
    }
    try {
      store.allowingWrites(tierlock::checkDatastore);
    } catch (DatastoreUnsafeException e) {
      return DoctorFinding.failure(NAME, "unsafe", e, "use another datastore: Tierlock refuses to write to one that"
          + " ignores write preconditions (it would lose writes)");
    } catch (TierlockException e) {
      return DoctorFinding.failure(NAME, "Cannot finish the self-check", e, "it proves nothing either way; it runs"
          + " again next time ('tierlock doctor --self-check')");
    }
    return DoctorFinding.ok(NAME, "passed now: it honours create-only writes, compare-and-swap and conditional deletes"
        + (writes ? " (the full check ran: probe objects were written and deleted under " + probes(doctor.namespace())
            + ", and a verdict object left there)" : " (the fresh verdict this checkout recorded was proven by one"
            + " read; nothing was written)"));
  }
}
