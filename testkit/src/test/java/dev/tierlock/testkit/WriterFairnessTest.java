package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.CommitMode;
import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.Heartbeats;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.LockIdentity;
import dev.tierlock.Namespace;
import dev.tierlock.TierlockException;
import dev.tierlock.Tierlock;
import dev.tierlock.spi.Datastore;
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
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sixteen checkouts committing in a loop without the lease, on virtual time: every call to the
 * store takes a round trip (half on the way there, half back; the store applies it in between),
 * local work takes none. One writer runs at a time until it sleeps ({@link VirtualTime}); every
 * draw is seeded, so each run is the same run. No writer starves: each commits at least a quarter
 * of the mean; the store's bound holds (a write conditional on a peer's version is sent only once
 * that version's answer came back, so commits land at least a round trip apart); and the writers
 * together commit more than the baseline protocol (lease create, read, write, delete: four round
 * trips a commit, one holder at a time) ever can.
 */
class WriterFairnessTest {

  private static final Duration RTT = Duration.ofMillis(10);
  private static final int WRITERS = 16;
  private static final Duration WARM_UP = Duration.ofSeconds(3);
  private static final Duration WINDOW = Duration.ofSeconds(20);

  @TempDir Path dir;

  /** What one simulated run measured in its window. */
  private record Figures(int[] commits, int failures, long calls) {
    int total() {
      return Arrays.stream(commits).sum();
    }

    double mean() {
      return total() / (double) commits.length;
    }

    int min() {
      return Arrays.stream(commits).min().orElseThrow();
    }

    @Override
    public String toString() {
      return String.format("commits %s, mean %.1f, min %d, %.1f commits/s, %.2f calls a commit, %d failed",
          Arrays.toString(commits), mean(), min(), total() / (double) WINDOW.toSeconds(),
          calls / (double) Math.max(1, total()), failures);
    }
  }

  @Test
  void optimistic_sixteenWriters_everyWriterCommitsAQuarterOfTheMean() throws Exception {
    assertFair(simulate(CommitMode.OPTIMISTIC, FakeRemote.Versions.GENERATIONS));
  }

  @Test
  void auto_sixteenWriters_everyWriterCommitsAQuarterOfTheMean() throws Exception {
    assertFair(simulate(CommitMode.AUTO, FakeRemote.Versions.GENERATIONS));
  }

  @Test
  void optimistic_sixteenWritersOnRepeatingVersions_everyWriterCommitsAQuarterOfTheMean() throws Exception {
    // versions that repeat (S3's ETags, the filesystem's digests): a warm commit checks the head first
    assertFair(simulate(CommitMode.OPTIMISTIC, FakeRemote.Versions.CONTENT_DIGEST));
  }

  @Test
  void auto_sixteenWritersOnRepeatingVersions_everyWriterCommitsAQuarterOfTheMean() throws Exception {
    assertFair(simulate(CommitMode.AUTO, FakeRemote.Versions.CONTENT_DIGEST));
  }

  private static void assertFair(Figures figures) {
    System.out.println("16 writers on virtual time: " + figures);
    assertThat(figures.min()).as("the writer that committed least; " + figures)
        .isGreaterThanOrEqualTo((int) Math.ceil(figures.mean() / 4));
    assertThat((long) figures.total()).as("commits land a round trip apart at best; " + figures)
        .isLessThanOrEqualTo(WINDOW.dividedBy(RTT) + 1);
    assertThat(figures.total() / (double) WINDOW.toSeconds())
        .as("above the baseline protocol's best, one commit per four round trips; " + figures)
        .isGreaterThan(1000.0 / (4 * RTT.toMillis()));
    assertThat(figures.failures()).as(figures.toString()).isZero();
  }

  private Figures simulate(CommitMode mode, FakeRemote.Versions versions) throws Exception {
    TestClock clock = TestClock.create();
    VirtualTime time = new VirtualTime(clock);
    try (FakeRemote remote = FakeRemote.builder().versions(versions).build()) {
      Latency store = new Latency(remote, time, clock);
      // the self-check and a trusted history (auto mode trusts 8 Tierlock versions), without latency
      try (TestCheckout setup = TestCheckout.builder(store, dir.resolve("setup"), clock).build()) {
        for (int i = 0; i < 8; i++) {
          setup.put("@w/setup", "0.0." + i);
        }
      }
      Instant from = clock.instant().plus(WARM_UP);
      Instant to = from.plus(WINDOW);
      int[] commits = new int[WRITERS];
      AtomicInteger failures = new AtomicInteger();
      List<Tierlock> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        Tierlock tierlock = writer(store, clock, time, mode, w);
        writers.add(tierlock);
        int writer = w;
        ExtensionName name = ExtensionName.of("@w/writer-" + w);
        time.start("writer-" + w, () -> {
          for (int n = 0; clock.instant().isBefore(to); n++) {
            Instant begin = clock.instant();
            LockfileEntry entry = LockfileEntry.builder("1.0." + n, begin).build();
            try {
              tierlock.transaction().run(tx -> tx.put(name, entry));
            } catch (TierlockException e) {
              if (!begin.isBefore(from)) {
                failures.incrementAndGet();
              }
              continue;
            }
            if (!begin.isBefore(from) && !clock.instant().isAfter(to)) {
              commits[writer]++;
            }
          }
        });
      }
      store.measure(from, to);
      time.run();
      writers.forEach(Tierlock::close);
      store.off();
      Lockfile shared = TestCheckout.sharedLockfile(remote, Namespace.NONE);
      assertThat(shared.names()).as("every writer's name").hasSize(WRITERS + 1);
      return new Figures(commits, failures.get(), store.calls());
    }
  }

  private Tierlock writer(Datastore store, TestClock clock, VirtualTime time, CommitMode mode, int w) {
    AtomicInteger ids = new AtomicInteger();
    Heartbeats never = (name, interval, beat) -> () -> { };
    Environment environment = Environment.system().withClock(clock).withSleeper(time::sleep)
        .withRandom(new SplittableRandom(w)).withHeartbeats(never).withHostProcesses(HostTable.of("host-" + w))
        .withLockIdentity(LockIdentity.of("writer-" + w, "host-" + w, 100 + w))
        .withNonces(() -> "w" + w + "-n" + ids.incrementAndGet())
        .withCommitIds(() -> "w" + w + "-c" + ids.incrementAndGet());
    return Tierlock.builder().datastore(store).checkout(dir.resolve("writer-" + w)).environment(environment)
        .commitMode(mode).build();
  }

  /**
   * The store at a fixed round trip of virtual time: half before the call is applied, half after;
   * counts the calls made inside the measured window. Off until the setup is done.
   */
  private static final class Latency extends ForwardingDatastore {
    private final Datastore delegate;
    private final VirtualTime time;
    private final TestClock clock;
    private final AtomicLong calls = new AtomicLong();
    private volatile boolean on;
    private volatile Instant from = Instant.MAX;
    private volatile Instant to = Instant.MAX;

    Latency(Datastore delegate, VirtualTime time, TestClock clock) {
      this.delegate = delegate;
      this.time = time;
      this.clock = clock;
    }

    void measure(Instant start, Instant end) {
      from = start;
      to = end;
      on = true;
    }

    void off() {
      on = false;
    }

    long calls() {
      return calls.get();
    }

    private void there() {
      if (on) {
        Instant now = clock.instant();
        if (!now.isBefore(from) && now.isBefore(to)) {
          calls.incrementAndGet();
        }
        time.sleep(RTT.dividedBy(2));
      }
    }

    private void back() {
      if (on) {
        time.sleep(RTT.dividedBy(2));
      }
    }

    @Override
    protected Datastore delegate() {
      return delegate;
    }

    @Override
    protected boolean passesPreconditionsThrough() {
      return true;
    }

    @Override
    public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
      there();
      ReadResult result = super.read(key, condition, maxBytes);
      back();
      return result;
    }

    @Override
    public Optional<StoredObject> stat(ObjectKey key) {
      there();
      Optional<StoredObject> result = super.stat(key);
      back();
      return result;
    }

    @Override
    public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
      there();
      WriteResult result = super.write(key, body, condition, metadata);
      back();
      return result;
    }

    @Override
    public DeleteResult delete(ObjectKey key, WriteCondition condition) {
      there();
      DeleteResult result = super.delete(key, condition);
      back();
      return result;
    }

    @Override
    public List<StoredObject> list(String prefix) {
      there();
      List<StoredObject> result = super.list(prefix);
      back();
      return result;
    }
  }
}
