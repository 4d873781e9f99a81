package dev.tierlock.testkit;

import static dev.tierlock.testkit.ArchiveFixture.archive;
import static dev.tierlock.testkit.ArchiveFixture.keyOf;
import static dev.tierlock.testkit.ArchiveFixture.objectKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ArchiveCollector;
import dev.tierlock.CommitMode;
import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.Tierlock;
import dev.tierlock.TierlockException;
import dev.tierlock.TierPath;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveTransactions;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.archive.VerifiedArchive;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Collections, installs, rollbacks, removals and lease takeovers interleave on one fake remote, each
 * checkout with a clock of its own (skewed by up to three days either way against the store's), the
 * store's clock moving on by arbitrary amounts: a collection runs between a writer's marks and its
 * publish, a writer pins an archive while a collection deletes it, and a waiter takes a live holder's
 * lease over (its clock far enough ahead) and rolls back right after the holder's publish. The
 * oracle, checked after every step: every archive pinned by the current lockfile, or by any version
 * of it published within the retention window (on the store's clock), is in the tier. Runs on both
 * version presets (fresh generations; digests of the bytes, as S3 ETags). Tries: {@code
 * jqwik.tries.default} (150 in {@code junit-platform.properties}); raise it with {@code
 * -Djqwik.tries.default=1000}.
 */
class ArchiveReachabilityPropertyTest {

  private static final List<ExtensionName> NAMES = List.of(ExtensionName.of("@acme/tool"), ExtensionName.of("@acme/lib"));
  private static final int VERSIONS = 3;

  /** Every archive a scenario can install, by object key: its name's and version's index. */
  private static final Map<String, int[]> POOL = new java.util.HashMap<>();

  static {
    for (int n = 0; n < NAMES.size(); n++) {
      for (int v = 0; v < VERSIONS; v++) {
        POOL.put(objectKey(keyOf(NAMES.get(n).value(), bytesOf(n, v))).value(), new int[] {n, v});
      }
    }
  }

  private static byte[] bytesOf(int name, int version) {
    return archive(NAMES.get(name).value() + " " + version);
  }

  private static long tries;
  private static final Map<Op, Long> OPS = new EnumMap<>(Op.class);
  private static final Map<ArchiveCollector.Verdict, Long> VERDICTS = new EnumMap<>(ArchiveCollector.Verdict.class);

  /** What a step does. */
  enum Op {
    /** Installs version {@code version} of the name (a rollback when an older one). */
    INSTALL,
    /** Removes the name's entry. */
    REMOVE,
    /** Runs a collection with deletes. */
    COLLECT,
    /** The store's clock moves on by {@code hours}. */
    ADVANCE,
    /** A collection runs after the writer's marks, before its lockfile write. */
    COLLECT_INSIDE_INSTALL,
    /** Another checkout pins the archive a collection is about to delete. */
    INSTALL_INSIDE_COLLECT,
    /** Right after the writer's publish, another checkout takes its lease over and rolls back. */
    TAKEOVER
  }

  /** One step: who, what, on which name and version, with which peer, and how far the store's clock moves. */
  record Step(int actor, Op op, int name, int version, int peer, int peerVersion, int hours) {}

  /** A scenario: each checkout's skew against the store and commit mode, the window, the steps. */
  record Scenario(List<Duration> skews, List<CommitMode> modes, Duration retention, List<Step> steps) {}

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<Duration> skew = Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just(Duration.ZERO)),
        Tuple.of(3, Arbitraries.longs().between(-3 * 86_400, 3 * 86_400).map(Duration::ofSeconds)),
        Tuple.of(2, Arbitraries.of(Duration.ofSeconds(61), Duration.ofSeconds(-61), Duration.ofMinutes(5))));
    Arbitrary<Op> ops = Arbitraries.frequency(Tuple.of(6, Op.INSTALL), Tuple.of(2, Op.REMOVE), Tuple.of(3, Op.COLLECT),
        Tuple.of(4, Op.ADVANCE), Tuple.of(2, Op.COLLECT_INSIDE_INSTALL), Tuple.of(2, Op.INSTALL_INSIDE_COLLECT),
        Tuple.of(2, Op.TAKEOVER));
    return Arbitraries.integers().between(2, 3).flatMap(n -> {
      Arbitrary<Step> step = Combinators.combine(Arbitraries.integers().between(0, n - 1), ops,
          Arbitraries.integers().between(0, NAMES.size() - 1), Arbitraries.integers().between(0, VERSIONS - 1),
          Arbitraries.integers().between(1, n - 1), Arbitraries.integers().between(0, VERSIONS - 1),
          Arbitraries.of(1, 6, 47, 83, 85, 170, 200, 400)).as(Step::new);
      return Combinators.combine(skew.list().ofSize(n), Arbitraries.of(CommitMode.class).list().ofSize(n),
          Arbitraries.of(Duration.ofDays(1), Duration.ofDays(7), Duration.ofHours(84)),
          step.list().ofMinSize(4).ofMaxSize(30)).as(Scenario::new);
    });
  }

  @Property
  void everyArchivePinnedNowOrWithinTheWindow_isInTheTier(@ForAll("scenarios") Scenario scenario) throws IOException {
    new Play(scenario, FakeRemote.Versions.GENERATIONS).run();
  }

  @Property
  void everyArchivePinnedNowOrWithinTheWindow_isInTheTier_whenEqualBytesGetEqualVersions(
      @ForAll("scenarios") Scenario scenario) throws IOException {
    new Play(scenario, FakeRemote.Versions.CONTENT_DIGEST).run();
  }

  @AfterContainer
  static void report() {
    System.out.println("ArchiveReachabilityPropertyTest: " + tries + " scenarios; steps " + OPS + "; verdicts "
        + VERDICTS);
  }

  /** One scenario played on a fresh fake remote. */
  private static final class Play {
    private final Scenario scenario;
    private final TestClock storeClock = TestClock.create();
    private final FakeRemote remote;
    private final Recorder recorder;
    private final Path dir;
    private final List<Tierlock> checkouts = new ArrayList<>();
    private final List<ArchiveTransactions> archives = new ArrayList<>();
    private final List<FaultyDatastore> stores = new ArrayList<>();

    Play(Scenario scenario, FakeRemote.Versions versions) throws IOException {
      this.scenario = scenario;
      this.remote = FakeRemote.builder().versions(versions).clock(storeClock).build();
      this.recorder = new Recorder(remote, storeClock);
      this.dir = Files.createTempDirectory("tierlock-archive-property");
    }

    void run() throws IOException {
      try {
        for (int i = 0; i < scenario.skews().size(); i++) {
          FaultyDatastore store = FaultyDatastore.wrap(recorder);
          Clock clock = Clock.offset(storeClock, scenario.skews().get(i));
          Tierlock tierlock = Tierlock.builder().datastore(store).checkout(dir.resolve("c" + i))
              .commitMode(scenario.modes().get(i))
              .environment(Environment.system().withClock(clock).withSleeper(storeClock.sleeper())
                  .withRandom(new SplittableRandom(i)).withHeartbeats(ManualHeartbeats.create())
                  .withLockIdentity(LockIdentity.of("c" + i + "@host-" + i, "host-" + i, 100 + i)))
              .build();
          stores.add(store);
          checkouts.add(tierlock);
          archives.add(ArchiveTransactions.of(tierlock, ArchiveLimits.DEFAULTS, clock));
        }
        for (Step step : scenario.steps()) {
          OPS.merge(step.op(), 1L, Long::sum);
          play(step);
          stores.forEach(s -> s.faults().clear());
          checkOracle(step);
        }
        tries++;
      } finally {
        checkouts.forEach(Tierlock::close);
        remote.close();
        deleteAll(dir);
      }
    }

    private static void deleteAll(Path root) throws IOException {
      try (var walk = Files.walk(root)) {
        for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }

    private void play(Step step) {
      int a = step.actor();
      int peer = (a + step.peer()) % checkouts.size();
      switch (step.op()) {
        case INSTALL -> install(a, step.name(), step.version());
        case REMOVE -> quietly(() -> checkouts.get(a).transaction().run(tx -> archives.get(a).remove(tx,
            NAMES.get(step.name()))));
        case COLLECT -> collect(a);
        case ADVANCE -> storeClock.advance(Duration.ofHours(step.hours()));
        case COLLECT_INSIDE_INSTALL -> {
          stores.get(a).faults().beforeNext(DatastoreOperation.WRITE, Recorder.LOCKFILE::equals, () -> collect(peer));
          install(a, step.name(), step.version());
        }
        case INSTALL_INSIDE_COLLECT -> {
          // the peer pins exactly the archive the collection is about to delete (a rollback)
          int[] target = new int[] {step.name(), step.peerVersion()};
          stores.get(a).faults().beforeNext(DatastoreOperation.DELETE, key -> {
            int[] pool = POOL.get(key.value());
            if (pool != null) {
              target[0] = pool[0];
              target[1] = pool[1];
            }
            return pool != null;
          }, () -> install(peer, target[0], target[1]));
          collect(a);
        }
        case TAKEOVER -> {
          stores.get(a).faults().afterNext(DatastoreOperation.WRITE, Recorder.LOCKFILE::equals, () -> {
            install(peer, step.name(), step.peerVersion());
            collect(peer);
          });
          install(a, step.name(), step.version());
        }
      }
    }

    private void install(int actor, int name, int version) {
      ExtensionName extension = NAMES.get(name);
      byte[] bytes = bytesOf(name, version);
      ExtensionArchiveKey key = keyOf(extension.value(), bytes);
      quietly(() -> {
        try {
          Path file = Files.write(Files.createTempFile(dir, "download", ".tar.gz"), bytes);
          VerifiedArchive verified = archives.get(actor).verify(key, file);
          LockfileEntry entry = LockfileEntry.builder("1." + version + ".0", storeClock.instant()).build();
          checkouts.get(actor).transaction().run(tx -> archives.get(actor).install(tx, verified, entry));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }

    private void collect(int actor) {
      quietly(() -> ArchiveCollector.collect(checkouts.get(actor), scenario.retention(), true).archives()
          .forEach(j -> VERDICTS.merge(j.verdict(), 1L, Long::sum)));
    }

    /** Runs {@code work}; a run that fails as a run may (a lease not had in time, a busy store) is no violation. */
    private static void quietly(Runnable work) {
      try {
        work.run();
      } catch (TierlockException e) {
        // refused or failed: it published nothing it was not acknowledged for; the oracle still holds
      }
    }

    private void checkOracle(Step step) {
      Instant now = storeClock.instant();
      TreeSet<String> needed = new TreeSet<>();
      List<Recorder.Published> history = recorder.history();
      for (int i = 0; i < history.size(); i++) {
        Recorder.Published p = history.get(i);
        boolean current = i == history.size() - 1;
        if (current || p.at().isAfter(now.minus(scenario.retention()))) {
          needed.addAll(pinned(p.lockfile()));
        }
      }
      for (String key : needed) {
        assertThat(remote.stat(ObjectKey.of(key))).as("after %s (store time %s, window %s): %s is pinned by the"
            + " current lockfile or a version within the window", step, now, scenario.retention(), key).isPresent();
      }
    }

    private static List<String> pinned(Lockfile lockfile) {
      List<String> out = new ArrayList<>();
      for (ExtensionName name : NAMES) {
        lockfile.entry(name).flatMap(LockfileEntry::checksum).ifPresent(sha ->
            out.add(objectKey(ExtensionArchiveKey.of(name, sha)).value()));
      }
      return out;
    }
  }

  /** The remote as every checkout reaches it, recording each lockfile version that lands, with the store's time. */
  private static final class Recorder extends ForwardingDatastore {
    static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);

    record Published(Instant at, Lockfile lockfile) {}

    private final FakeRemote remote;
    private final Clock storeClock;
    private final List<Published> history = new ArrayList<>();

    Recorder(FakeRemote remote, Clock storeClock) {
      this.remote = remote;
      this.storeClock = storeClock;
    }

    static boolean isArchive(ObjectKey key) {
      return key.value().startsWith(TierPath.ARCHIVES + "/");
    }

    synchronized List<Published> history() {
      return List.copyOf(history);
    }

    @Override
    protected Datastore delegate() {
      return remote;
    }

    @Override
    public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
      if (!key.equals(LOCKFILE)) {
        return remote.write(key, body, condition, metadata);
      }
      byte[] bytes;
      try (InputStream in = body.open()) {
        bytes = in.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      synchronized (this) {
        WriteResult result = remote.write(key, ObjectBody.of(bytes), condition, metadata);
        if (result instanceof WriteResult.Written) {
          history.add(new Published(remote.stat(key).orElseThrow().modified().orElse(storeClock.instant()),
              Lockfile.parse(bytes, "version " + history.size())));
        }
        return result;
      }
    }

    @Override
    public void close() {
      // the remote belongs to the play
    }
  }
}
