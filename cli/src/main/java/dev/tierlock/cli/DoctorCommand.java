package dev.tierlock.cli;

import dev.tierlock.DistributedLock;
import dev.tierlock.HostProcesses;
import dev.tierlock.LockInfo;
import dev.tierlock.LockUnreadableException;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileFormatException;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.Namespace;
import dev.tierlock.PendingChange;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.TierlockException;
import dev.tierlock.UnknownSchemeException;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.DatastoreProvider;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code tierlock doctor}: one line per check of the datastore and the checkout, and an exit code
 * by the worst finding. Read-only: it never creates a datastore, a checkout or a state directory,
 * never takes a lock, and never writes to the datastore (its datastore refuses every write and
 * delete) unless {@code --self-check} is given, which runs the precondition self-check.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true,
    description = {
      "Checks the datastore and this checkout, and prints one line per check: ok|warn|fail|skip, the check, what"
          + " it found and what to run.",
      "Checks: datastore-reachable (one read of the shared lockfile: present, version, size, parses),"
          + " datastore-identity, self-check (the verdict this checkout and the store hold; with --self-check, the"
          + " check itself), global-lock (holder, since when, stale or gone), pending-record, state-directory"
          + " (.swamp: writable, lock files, leftover temp files, its JSON files parse) and install-staging"
          + " (extensions/.tierlock-staging: journals of interrupted installs).",
      "Read-only: it creates no datastore, checkout or state directory, takes no lock, and writes nothing to the"
          + " datastore unless --self-check is given. A check that needs something missing (the datastore, the"
          + " state directory) is skipped."},
    footer = {"",
      "Exit code: 0 when no check fails (the summary says 'warnings' when some warn); otherwise the exit code of the"
          + " first failing check: 2 no datastore at the given place (datastore_missing), 1 a lockfile that does not"
          + " parse (lockfile_format), a pending change in doubt or unreadable (lockfile_outcome_unknown), or a state"
          + " directory that cannot be used, 69 a datastore unavailable, refused or unsafe."})
final class DoctorCommand implements Callable<Integer> {

  /** The names of the checks, in the order they are printed. */
  static final List<String> CHECKS = List.of("datastore-reachable", "datastore-identity", "self-check", "global-lock",
      "pending-record", "state-directory", "install-staging");

  /** The self-check marker's file name in the state directory (core's {@code SelfCheckMarker}). */
  static final String SELF_CHECK_MARKER = "datastore-selfcheck.json";

  /** The pending record's file name in the state directory (core's {@code PendingRecord}). */
  static final String PENDING_RECORD = "managed-config-lockfile-unpublished";

  /** The checkout's transaction lock file (core's {@code CheckoutLock}). */
  static final String TRANSACTION_LOCK = "transaction.lock";

  /** The lock of the checkout's pulled extensions (core's {@code PulledExtensionsLock}). */
  static final String PULLED_EXTENSIONS_LOCK = "pulled-extensions.lock";

  /** The record of the cached lockfile (core's {@code LockfileCache}). */
  static final String HYDRATED_RECORD = "lockfile-hydrated.json";

  /** Convergence's state, when a convergence has run on this checkout. */
  static final String CONVERGENCE_STATE = "convergence-state.json";

  /** The self-check's prefix below the namespace, and its verdict object's metadata (core's {@code SelfCheck}). */
  static final String SELF_CHECK_PREFIX = ".tierlock-selfcheck/";

  private static final String VERDICT_TOKEN = "tierlock-verdict";
  private static final String VERDICT_CHECKED_AT = "tierlock-checked-at";
  private static final Duration VERDICT_TTL = Duration.ofHours(24);

  /** The install engine's staging directory under {@code extensions/}. */
  static final String STAGING = ".tierlock-staging";

  /** A temp file of an atomic write: {@code .<target>.<uuid>.tmp}. */
  private static final Pattern TEMP_FILE =
      Pattern.compile("^\\..+\\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.tmp$");

  /** How old a temp file must be before it counts as left over (a younger one may be a write in progress). */
  private static final Duration LEFTOVER = Duration.ofHours(1);

  @ParentCommand TierlockCli root;
  @Spec CommandSpec spec;

  @Option(names = "--json", description = "Print the findings as one JSON object: checks, summary, exitCode.")
  boolean json;

  @Option(names = "--self-check", description = "Run the datastore's precondition self-check (as 'tierlock init' does):"
      + " unless a fresh verdict is proven by one read, it writes and deletes probe objects under"
      + " [<namespace>/].tierlock-selfcheck/ and leaves a verdict object there. Without it, doctor only reports the"
      + " verdict this checkout recorded and the store holds, and writes nothing.")
  boolean selfCheck;

  /** How a check ended. */
  enum Level {
    OK,
    WARN,
    FAIL,
    SKIP;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One check's finding.
   *
   * @param check the check's name
   * @param level how it ended
   * @param detail what it found
   * @param hint what to run or do, if anything
   * @param code the error code of a warning or failure, if it has one
   * @param exitCode the exit code a failure gives ({@link ExitCodes#OK} otherwise)
   */
  record Finding(String check, Level level, String detail, @Nullable String hint, @Nullable String code, int exitCode) {
    static Finding ok(String check, String detail) {
      return new Finding(check, Level.OK, detail, null, null, ExitCodes.OK);
    }

    static Finding ok(String check, String detail, @Nullable String hint) {
      return new Finding(check, Level.OK, detail, hint, null, ExitCodes.OK);
    }

    static Finding warn(String check, String detail, @Nullable String hint, @Nullable String code) {
      return new Finding(check, Level.WARN, detail, hint, code, ExitCodes.OK);
    }

    static Finding fail(String check, String detail, @Nullable String hint, @Nullable String code, int exitCode) {
      return new Finding(check, Level.FAIL, detail, hint, code, exitCode);
    }

    static Finding skip(String check, String why) {
      return new Finding(check, Level.SKIP, why, null, null, ExitCodes.OK);
    }

    static Finding failure(String check, String what, TierlockException e, @Nullable String hint) {
      return fail(check, what + ": " + e.getMessage(), hint, e.code(), ExitCodes.of(e));
    }
  }

  @Override
  public Integer call() {
    Instant now = root.clock().instant();
    Namespace namespace = Namespace.of(root.namespace);
    URI uri = root.datastoreUri();
    // every argument is read before anything is opened
    Tierlock.Builder builder = root.builder(uri);
    Path checkout = (root.checkout != null ? root.checkout : Path.of("")).toAbsolutePath().normalize();
    Path state = checkout.resolve(Tierlock.DEFAULT_STATE_DIRECTORY);
    // the local checks first, before anything (a --self-check) may create the state directory
    boolean stateExisted = Files.isDirectory(state);
    Finding stateDirectory = stateDirectory(state, now);
    Finding staging = staging(checkout.resolve(ExtensionsCommands.EXTENSIONS).resolve(STAGING), now);

    List<Finding> findings = new ArrayList<>();
    Datastore opened = null;
    String missing = null;
    if ("file".equalsIgnoreCase(uri.getScheme()) && !Files.isDirectory(Path.of(uri))) {
      missing = new MissingDatastoreException(Path.of(uri), root.datastore == null).getMessage();
    } else {
      try {
        opened = openDatastore(uri);
      } catch (TierlockException e) {
        if (e instanceof UnknownSchemeException) {
          throw e;
        }
        findings.add(Finding.failure(CHECKS.get(0), "Cannot open datastore " + uri, e, null));
      }
    }
    try {
      if (opened == null) {
        if (missing != null) {
          findings.add(Finding.fail(CHECKS.get(0), missing, null, MissingDatastoreException.CODE, ExitCodes.USAGE));
        }
        String why = missing != null ? "no datastore" : "the datastore could not be opened";
        for (String check : CHECKS.subList(1, 5)) {
          findings.add(Finding.skip(check, why));
        }
      } else {
        ReadOnlyDatastore store = new ReadOnlyDatastore(opened);
        boolean[] answered = {false};
        findings.add(reachable(store, namespace, answered));
        findings.add(identity(store, namespace));
        Tierlock tierlock = null;
        try {
          if (!answered[0]) {
            findings.add(Finding.skip("self-check", "the datastore did not answer"));
            findings.add(Finding.skip("global-lock", "the datastore did not answer"));
          } else {
            if (selfCheck) {
              try {
                tierlock = builder.datastore(store).build();
                findings.add(runSelfCheck(store, tierlock, namespace, state, now));
              } catch (TierlockException e) {
                findings.add(Finding.failure("self-check", "Cannot open the checkout " + checkout, e, null));
              }
            } else {
              findings.add(cachedSelfCheck(store, namespace, state, now));
            }
            findings.add(globalLock(store, namespace, now));
          }
          if (tierlock == null && stateExisted) {
            // the state directory is there, so opening the checkout creates nothing
            try {
              tierlock = builder.datastore(store).build();
            } catch (TierlockException e) {
              findings.add(Finding.failure("pending-record", "Cannot open the checkout " + checkout, e, null));
            }
          }
          if (tierlock != null) {
            findings.add(pending(tierlock));
          } else if (!stateExisted) {
            findings.add(Finding.ok("pending-record", "none (no state directory yet)"));
          }
        } finally {
          if (tierlock != null) {
            tierlock.close();
          }
        }
      }
    } finally {
      if (opened != null) {
        opened.close();
      }
    }
    findings.add(stateDirectory);
    findings.add(staging);
    return report(uri, findings);
  }

  // ---- datastore-reachable

  private static Finding reachable(Datastore store, Namespace namespace, boolean[] answered) {
    String check = "datastore-reachable";
    ObjectKey key = namespace.key(TierPath.LOCKFILE);
    String where = store.describe() + " " + key;
    ReadResult read;
    try {
      read = store.read(key, ReadCondition.always(), Lockfile.MAX_BYTES);
    } catch (TierlockException e) {
      boolean tooLarge = e instanceof dev.tierlock.spi.ObjectTooLargeException;
      answered[0] = tooLarge;
      return Finding.fail(check, e.getMessage(), tooLarge
          ? "inspect the object; Tierlock reads no lockfile over " + Lockfile.MAX_BYTES + " bytes"
          : e instanceof dev.tierlock.spi.DatastoreAccessDeniedException
              ? "set or fix the credentials and permissions (docs/operator-guide.md)"
              : "retry later; check the network and the endpoint", e.code(), ExitCodes.of(e));
    }
    answered[0] = true;
    if (read instanceof ReadResult.Found found) {
      StoredObject object = found.object();
      String head = "read " + where + ": present, version " + object.version().value() + ", "
          + found.bytes().length + " bytes" + object.metadata().get(ObjectMetadata.COMMIT_ID).map(c -> ", commit " + c)
              .orElse("");
      try {
        Lockfile lockfile = Lockfile.parse(found.bytes(), where);
        String entries = lockfile.size() + (lockfile.size() == 1 ? " entry" : " entries");
        if (!lockfile.foreign().isEmpty()) {
          return Finding.warn(check, head + ", parses: " + entries + " and " + lockfile.foreign().size()
              + " member(s) Tierlock cannot edit (" + String.join(", ", lockfile.foreign().stream()
                  .map(f -> f.name() + ": " + f.reason()).toList()) + ")",
              "they are kept as they are and a write to them is refused (foreign_entry); fix them by hand",
              "foreign_entry");
        }
        return Finding.ok(check, head + ", parses: " + entries);
      } catch (LockfileFormatException e) {
        return Finding.fail(check, head + ", does not parse: " + e.getMessage(),
            "fix it by hand ('tierlock entries list --json' prints it as stored); Tierlock never overwrites it",
            e.code(), ExitCodes.of(e));
      }
    }
    return Finding.ok(check, "read " + where + ": absent (no lockfile yet; the first write creates it)");
  }

  // ---- datastore-identity

  private static Finding identity(Datastore store, Namespace namespace) {
    DatastoreIdentity id = store.identity();
    return Finding.ok("datastore-identity", "scheme " + id.scheme() + ", endpoint " + orNone(id.endpoint())
        + ", container " + orNone(id.container()) + ", prefix " + orNone(id.prefix()) + ", namespace "
        + namespace.name().orElse("(none)"));
  }

  private static String orNone(String part) {
    return part.isEmpty() ? "(none)" : part;
  }

  // ---- self-check

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
    Optional<StoredObject> object = store.stat(namespace.rootKey(SELF_CHECK_PREFIX + "verdict"));
    Instant inStore = object.flatMap(o -> o.metadata().get(VERDICT_CHECKED_AT)).map(DoctorCommand::instantOrNull)
        .orElse(null);
    Path marker = state.resolve(SELF_CHECK_MARKER);
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
    return namespace.name().map(n -> n + "/").orElse("") + SELF_CHECK_PREFIX;
  }

  private static Finding cachedSelfCheck(Datastore store, Namespace namespace, Path state, Instant now) {
    String check = "self-check";
    Verdicts v;
    try {
      v = verdicts(store, namespace, state);
    } catch (TierlockException e) {
      return Finding.failure(check, "Cannot read the self-check verdict of " + store.describe(), e, null);
    }
    String fullCheck = "runs the full check (it writes and deletes probe objects under " + probes(namespace)
        + " and leaves a verdict object)";
    String runNow = "'tierlock doctor --self-check' or 'tierlock init' runs it now";
    if (v.proven() && v.recordedHere() != null) {
      if (v.freshAt(now)) {
        return Finding.ok(check, "passed at " + v.recordedHere() + " (" + ago(v.recordedHere(), now) + "), the verdict this"
            + " checkout recorded, proven by one read of the verdict object; writes trust it until "
            + v.recordedHere().plus(VERDICT_TTL) + " (not run now: --self-check runs it)");
      }
      return Finding.ok(check, "passed at " + v.recordedHere() + " (" + ago(v.recordedHere(), now) + "), over "
          + VERDICT_TTL.toHours() + " h ago: the next write " + fullCheck, runNow);
    }
    if (v.inStore() != null) {
      return Finding.ok(check, "passed at " + v.inStore() + " (" + ago(v.inStore(), now) + ") from some checkout (a"
          + " verdict object is in the store), but " + v.markerProblem() + ": the next write from this checkout "
          + fullCheck, runNow);
    }
    return Finding.warn(check, "not known: the store holds no verdict object and " + v.markerProblem()
        + "; the first write " + fullCheck + ", and refuses to write to a store that ignores write preconditions",
        runNow, null);
  }

  private static Finding runSelfCheck(ReadOnlyDatastore store, Tierlock tierlock, Namespace namespace, Path state,
      Instant now) {
    String check = "self-check";
    boolean writes;
    try {
      writes = !verdicts(store, namespace, state).freshAt(now);
    } catch (TierlockException e) {
      writes = true;
    }
    try {
      store.allowingWrites(tierlock::checkDatastore);
    } catch (DatastoreUnsafeException e) {
      return Finding.failure(check, "unsafe", e, "use another datastore: Tierlock refuses to write to one that ignores"
          + " write preconditions (it would lose writes)");
    } catch (TierlockException e) {
      return Finding.failure(check, "Cannot finish the self-check", e, "it proves nothing either way; it runs again"
          + " next time ('tierlock doctor --self-check')");
    }
    return Finding.ok(check, "passed now: it honours create-only writes, compare-and-swap and conditional deletes"
        + (writes ? " (the full check ran: probe objects were written and deleted under " + probes(namespace)
            + ", and a verdict object left there)" : " (the fresh verdict this checkout recorded was proven by one"
            + " read; nothing was written)"));
  }

  // ---- global-lock

  private Finding globalLock(Datastore store, Namespace namespace, Instant now) {
    String check = "global-lock";
    ObjectKey key = DistributedLock.globalKey(namespace);
    String lock = "lock \"" + key + "\" on " + store.describe();
    Optional<LockInfo> info;
    try {
      info = inspect(store, key);
    } catch (LockUnreadableException e) {
      return Finding.warn(check, e.getMessage() + " (" + lock + ")",
          "a writer treats it as held until it has stayed unchanged for longer than a lease ttl, then takes it over;"
              + " it cannot be released by nonce", e.code());
    } catch (TierlockException e) {
      return Finding.failure(check, "Cannot read " + lock, e, null);
    }
    if (info.isEmpty()) {
      return Finding.ok(check, "free: " + lock);
    }
    LockInfo holder = info.get();
    Duration age = Duration.between(holder.acquiredAt(), now);
    HostProcesses processes = HostProcesses.system();
    boolean here = holder.hostname().equals(processes.hostname());
    boolean running = here && processes.isRunning(holder.pid());
    boolean gone = here && (!running || processes.isGone(holder));
    boolean stale = holder.isStaleAt(now);
    String who = holder.holder() + " (host " + holder.hostname() + ", pid " + holder.pid()
        + holder.processStart().map(start -> ", started " + start).orElse("")
        + (here ? !running ? ", no such process on this host" : gone ? ", now another process's on this host"
            : ", alive on this host" : "") + ")";
    String since = "last heartbeat " + holder.acquiredAt() + " (" + ago(holder.acquiredAt(), now) + ", ttl "
        + holder.ttl().toMillis() + " ms), nonce " + holder.nonce();
    String release = "tierlock lock release --nonce " + holder.nonce();
    if (gone) {
      return Finding.warn(check, "held by a process that is gone: " + who + ", " + since + ", " + lock,
          "break-glass is safe (its process is gone): " + release + " (the next writer on this host takes it over"
              + " anyway)", null);
    }
    if (stale) {
      return Finding.warn(check, "stale: held by " + who + ", " + since + ": not refreshed for over twice its ttl, "
          + lock, "the next writer takes it over; break-glass is safe: " + release, null);
    }
    return Finding.ok(check, "held by " + who + ", " + since + ", lease fresh, " + lock, here
        ? "its process is alive: a writer waits for it; it renews the lease while it works"
        : "its host is another: a writer waits for it; only once you know that process is gone: " + release);
  }

  // ---- pending-record

  /** Reads the global lock's holder as {@link DistributedLock#inspect()} does, through the read-only store. */
  private static Optional<LockInfo> inspect(Datastore store, ObjectKey key) {
    ReadResult read = store.read(key, ReadCondition.always(), LockInfo.MAX_BYTES);
    return read instanceof ReadResult.Found found ? Optional.of(LockInfo.parse(key.value(), found.bytes()))
        : Optional.empty();
  }

  private static Finding pending(Tierlock tierlock) {
    String check = "pending-record";
    Optional<PendingChange> pending;
    try {
      pending = tierlock.transaction().pending();
    } catch (TierlockException e) {
      return Finding.failure(check, "Cannot read the pending record", e, null);
    }
    if (pending.isEmpty()) {
      return Finding.ok(check, "none");
    }
    PendingChange change = pending.get();
    String detail = change.describe() + " (record " + change.record() + ")";
    return switch (change.state()) {
      case UNPUBLISHED -> Finding.warn(check, detail, "saved here, not yet published: the next transaction on this"
          + " checkout publishes it ('tierlock pending apply' does it now; 'tierlock pending show' shows it)",
          "managed_config_unpublished");
      case IN_FLIGHT -> Finding.warn(check, detail, "a write's answer was lost: the next transaction on this checkout"
          + " settles it from the lineage ('tierlock pending apply' does it now)", LockfileOutcomeUnknownException.CODE);
      case OUTCOME_UNKNOWN -> Finding.fail(check, detail, "every transaction on this checkout fails until you run"
          + " 'tierlock pending show', then 'tierlock pending apply' or 'tierlock pending discard' (check the shared"
          + " lockfile first)", LockfileOutcomeUnknownException.CODE, ExitCodes.FAILURE);
      case UNREADABLE -> Finding.fail(check, detail, "every transaction on this checkout fails until you run"
          + " 'tierlock pending discard' (or publish it with the Tierlock version that wrote it)",
          LockfileOutcomeUnknownException.CODE, ExitCodes.FAILURE);
    };
  }

  // ---- state-directory

  private static Finding stateDirectory(Path state, Instant now) {
    String check = "state-directory";
    if (!Files.exists(state, LinkOption.NOFOLLOW_LINKS)) {
      return Finding.ok(check, state + ": none yet (the first command that needs it creates it)");
    }
    if (!Files.isDirectory(state)) {
      return Finding.fail(check, state + " is not a directory", "move it away; Tierlock keeps this checkout's locks and"
          + " pending record there", "local_io", ExitCodes.FAILURE);
    }
    List<String> found = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    if (!Files.isWritable(state)) {
      failures.add("not writable by this user (every transaction on this checkout needs to write its locks and"
          + " records there)");
    } else {
      found.add("writable");
    }
    List<String> locks = new ArrayList<>();
    for (String name : List.of(TRANSACTION_LOCK, PULLED_EXTENSIONS_LOCK)) {
      Path file = state.resolve(name);
      if (Files.isDirectory(file)) {
        failures.add(name + " is a directory, not a lock file");
      } else if (Files.exists(file)) {
        locks.add(name + (Files.isWritable(file) ? "" : " (not writable)"));
        if (!Files.isWritable(file)) {
          failures.add(name + " is not writable by this user");
        }
      }
    }
    found.add(locks.isEmpty() ? "no lock files yet" : "lock files " + String.join(", ", locks));
    for (String name : List.of(SELF_CHECK_MARKER, HYDRATED_RECORD, CONVERGENCE_STATE)) {
      Path file = state.resolve(name);
      if (!Files.exists(file)) {
        continue;
      }
      try {
        if (Json.parse(utf8(Files.readAllBytes(file))) instanceof Map<?, ?>) {
          found.add(name + " parses");
        } else {
          warnings.add(name + " is not a JSON object");
        }
      } catch (IOException | IllegalArgumentException e) {
        warnings.add(name + " cannot be read (" + e.getMessage() + ")");
      }
    }
    List<String> leftovers = new ArrayList<>();
    int recent = 0;
    try (Stream<Path> files = Files.walk(state, 8)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (!TEMP_FILE.matcher(file.getFileName().toString()).matches() || !Files.isRegularFile(file)) {
          continue;
        }
        Instant modified = Files.getLastModifiedTime(file).toInstant();
        if (Duration.between(modified, now).compareTo(LEFTOVER) > 0) {
          leftovers.add(state.relativize(file) + " (" + ago(modified, now) + ")");
        } else {
          recent++;
        }
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      warnings.add("cannot be listed in full (" + e.getMessage() + ")");
    }
    if (!leftovers.isEmpty()) {
      warnings.add(leftovers.size() + " leftover temp file(s) of interrupted writes: " + String.join(", ", leftovers));
    }
    if (recent > 0) {
      found.add(recent + " temp file(s) younger than " + LEFTOVER.toMinutes() + " min (a write in progress)");
    }
    String detail = state + ": " + String.join(", ", found)
        + (warnings.isEmpty() && failures.isEmpty() ? "" : "; " + String.join("; ", concat(failures, warnings)));
    if (!failures.isEmpty()) {
      return Finding.fail(check, detail, "fix the state directory's permissions (every user that runs this checkout"
          + " needs to write there)", "local_io", ExitCodes.FAILURE);
    }
    if (!warnings.isEmpty()) {
      return Finding.warn(check, detail, "a file that does not parse is ignored or rebuilt; leftover temp files and"
          + " such files are safe to delete while no tierlock runs on this checkout", null);
    }
    return Finding.ok(check, detail);
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private static String utf8(byte[] bytes) throws CharacterCodingException {
    return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(bytes)).toString();
  }

  // ---- install-staging

  private static Finding staging(Path staging, Instant now) {
    String check = "install-staging";
    if (!Files.isDirectory(staging)) {
      return Finding.ok(check, "none (" + staging + " absent)");
    }
    List<String> journals = new ArrayList<>();
    List<String> others = new ArrayList<>();
    try (DirectoryStream<Path> children = Files.newDirectoryStream(staging)) {
      for (Path child : children) {
        String id = child.getFileName().toString();
        Path journal = child.resolve("journal.json");
        if (Files.isRegularFile(journal)) {
          journals.add(id + " (" + journalSummary(journal, now) + ")");
        } else {
          others.add(id);
        }
      }
    } catch (IOException e) {
      return Finding.warn(check, staging + " cannot be listed (" + e.getMessage() + ")", null, null);
    }
    String leftovers = others.isEmpty() ? "" : others.size() + " staging leftover(s) without a journal ("
        + String.join(", ", others.stream().sorted().toList()) + "), swept by an install once an hour old";
    if (!journals.isEmpty()) {
      journals.sort(null);
      return Finding.warn(check, staging + ": " + journals.size() + " journal(s) of installs that did not finish: "
          + String.join(", ", journals) + (leftovers.isEmpty() ? "" : "; " + leftovers),
          "unless an install is running on this checkout now, the next 'tierlock install' or 'tierlock remove' here"
              + " finishes or rolls them back", null);
    }
    return Finding.ok(check, staging + ": " + (leftovers.isEmpty() ? "empty" : leftovers));
  }

  private static String journalSummary(Path journal, Instant now) {
    String age;
    try {
      age = ago(Files.getLastModifiedTime(journal).toInstant(), now);
    } catch (IOException e) {
      age = "age unknown";
    }
    try {
      if (Json.parse(utf8(Files.readAllBytes(journal))) instanceof Map<?, ?> members
          && members.get("extensionName") instanceof String name) {
        return name + (members.get("phase") instanceof String phase ? ", phase " + phase : "") + ", " + age;
      }
      return "a journal recovery cannot judge, " + age;
    } catch (IOException | IllegalArgumentException e) {
      return "journal unreadable: " + e.getMessage() + ", " + age;
    }
  }

  // ---- the report

  private int report(URI uri, List<Finding> findings) {
    int code = findings.stream().filter(f -> f.level() == Level.FAIL).mapToInt(Finding::exitCode).findFirst()
        .orElse(ExitCodes.OK);
    long fails = count(findings, Level.FAIL);
    long warns = count(findings, Level.WARN);
    long skips = count(findings, Level.SKIP);
    long oks = count(findings, Level.OK);
    String verdict = fails > 0 ? "failures" : warns > 0 ? "warnings" : "healthy";
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      StringBuilder text = new StringBuilder("{\n  \"datastore\": ").append(Json.quote(uri.toString()))
          .append(",\n  \"checks\": [");
      for (int i = 0; i < findings.size(); i++) {
        Finding f = findings.get(i);
        text.append(i == 0 ? "\n" : ",\n").append("    {\"check\": ").append(Json.quote(f.check()))
            .append(", \"status\": ").append(Json.quote(f.level().label()))
            .append(", \"detail\": ").append(Json.quote(f.detail()));
        if (f.hint() != null) {
          text.append(", \"hint\": ").append(Json.quote(f.hint()));
        }
        if (f.code() != null) {
          text.append(", \"code\": ").append(Json.quote(f.code()));
        }
        if (f.level() == Level.FAIL) {
          text.append(", \"exitCode\": ").append(f.exitCode());
        }
        text.append('}');
      }
      text.append("\n  ],\n  \"summary\": {\"ok\": ").append(oks).append(", \"warn\": ").append(warns)
          .append(", \"fail\": ").append(fails).append(", \"skip\": ").append(skips).append("},\n  \"verdict\": ")
          .append(Json.quote(verdict)).append(",\n  \"exitCode\": ").append(code).append("\n}\n");
      out.print(text);
    } else {
      int width = findings.stream().mapToInt(f -> f.check().length()).max().orElse(0);
      for (Finding f : findings) {
        out.println(String.format(Locale.ROOT, "%-4s  %-" + width + "s  %s", f.level().label(), f.check(), f.detail()
            + (f.code() != null && f.level() != Level.OK ? " [" + f.code() + "]" : "")
            + (f.hint() != null ? "; " + f.hint() : "")));
      }
      out.println("doctor: " + switch (verdict) {
        case "healthy" -> "healthy: every check ok" + (skips > 0 ? " (" + skips + " skipped)" : "");
        case "warnings" -> "warnings: " + warns + " warning(s), no failure" + (skips > 0 ? ", " + skips + " skipped" : "")
            + " (exit 0)";
        default -> "failures: " + fails + " failing check(s), " + warns + " warning(s)"
            + (skips > 0 ? ", " + skips + " skipped" : "") + " (exit " + code + ", the first failure's)";
      });
    }
    out.flush();
    return code;
  }

  private static long count(List<Finding> findings, Level level) {
    return findings.stream().filter(f -> f.level() == level).count();
  }

  /** Returns how long ago {@code then} was at {@code now}, for people: {@code 3 s ago}, {@code 2 h 5 min ago}. */
  static String ago(Instant then, Instant now) {
    Duration d = Duration.between(then, now);
    if (d.isNegative()) {
      return "in " + span(d.negated()) + " by this clock";
    }
    return span(d) + " ago";
  }

  private static String span(Duration d) {
    long s = d.toSeconds();
    if (s < 120) {
      return s < 1 ? d.toMillis() + " ms" : s + " s";
    }
    if (s < 7200) {
      return s / 60 + " min";
    }
    if (s < 3 * 86400) {
      return s / 3600 + " h " + (s % 3600) / 60 + " min";
    }
    return s / 86400 + " days";
  }

  // ---- the datastore, read-only

  /** Opens the datastore a URI names, through the provider of its scheme (as the library's builder does). */
  static Datastore openDatastore(URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    ServiceLoader<DatastoreProvider> providers = loader == null
        ? ServiceLoader.load(DatastoreProvider.class, DoctorCommand.class.getClassLoader())
        : ServiceLoader.load(DatastoreProvider.class, loader);
    TreeSet<String> schemes = new TreeSet<>();
    for (DatastoreProvider provider : providers) {
      if (provider.scheme().equals(scheme)) {
        return provider.open(uri);
      }
      schemes.add(provider.scheme());
    }
    String shown = uri.getUserInfo() == null ? uri.toString() : uri.toString().replace(uri.getRawUserInfo() + "@", "");
    throw new UnknownSchemeException(shown, List.copyOf(schemes));
  }

  /**
   * The datastore as doctor uses it: every write and delete is refused (a bug, if one were tried),
   * except while {@link #allowingWrites} runs the self-check that {@code --self-check} asked for.
   */
  static final class ReadOnlyDatastore extends ForwardingDatastore {
    private final Datastore delegate;
    private final AtomicBoolean writable = new AtomicBoolean();

    ReadOnlyDatastore(Datastore delegate) {
      this.delegate = delegate;
    }

    @Override
    protected Datastore delegate() {
      return delegate;
    }

    void allowingWrites(Runnable action) {
      writable.set(true);
      try {
        action.run();
      } finally {
        writable.set(false);
      }
    }

    @Override
    public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
      refuse("write", key);
      return delegate.write(key, body, condition, metadata);
    }

    @Override
    public DeleteResult delete(ObjectKey key, WriteCondition condition) {
      refuse("delete", key);
      return delegate.delete(key, condition);
    }

    @Override
    public void close() {
      // the caller closes the datastore it opened
    }

    private void refuse(String what, ObjectKey key) {
      if (!writable.get()) {
        throw new IllegalStateException("Cannot " + what + " " + key + " in " + delegate.describe()
            + ": tierlock doctor writes nothing to the datastore without --self-check");
      }
    }
  }
}
