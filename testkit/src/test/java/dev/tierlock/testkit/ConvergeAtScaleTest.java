package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.Heartbeats;
import dev.tierlock.LockIdentity;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.Converger;
import dev.tierlock.spi.ObjectKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Convergence of many entries: the restores of a pass prepared up to the configured bound at once
 * and applied in the lockfile's order, each as soon as it is ready (while later ones download), a failed restore reported alone with nothing of it staged,
 * an interrupt that stops the workers and leaves nothing staged, and a pass with nothing to do that
 * reads the state's header alone. On the fake remote, whose hooks hold calls on latches; nothing is
 * timed (the waits' bounds only turn a hang into a failure).
 */
class ConvergeAtScaleTest {

  private static final String T = "2026-01-01T00:00:00.000Z";
  private static final long HANG = 60;

  @TempDir Path temp;

  private final FakeRemote remote = FakeRemote.create();
  private final TestClock clock = TestClock.create();
  private final List<ObjectKey> archives = new ArrayList<>();
  private final List<String> names = new ArrayList<>();
  private Tierlock tierlock;

  @AfterEach
  void close() {
    if (tierlock != null) {
      tierlock.close();
    }
    remote.close();
  }

  /** Plants {@code count} small extensions' archives and a lockfile that pins them, in name order. */
  private void plant(int count) {
    StringBuilder lockfile = new StringBuilder("{\n  \"lockfileVersion\": 2");
    for (int i = 0; i < count; i++) {
      String name = String.format("@acme/e%03d", i);
      byte[] archive = TestArchives.extension(name, "1.0.0").file("f.txt", "x" + i).build();
      ObjectKey key = ConvergeFixture.archiveKey(name, archive);
      remote.plant(key, archive);
      archives.add(key);
      names.add(name);
      lockfile.append(",\n  \"").append(name).append("\": {\n    \"version\": \"1.0.0\",\n    \"pulledAt\": \"")
          .append(T).append("\",\n    \"checksum\": \"").append(TestArchives.sha256(archive)).append("\"\n  }");
    }
    remote.plant(Namespace.NONE.key(TierPath.LOCKFILE), lockfile.append("\n}\n").toString()
        .getBytes(StandardCharsets.UTF_8));
  }

  private Converger converger(int parallel) {
    return converger(parallel, boundary -> { });
  }

  private Converger converger(int parallel, java.util.function.Consumer<String> boundaries) {
    Heartbeats never = (lock, interval, beat) -> () -> { };
    tierlock = Tierlock.builder().datastore(remote).checkout(temp.resolve("b")).environment(Environment.system()
        .withClock(clock).withSleeper(clock.sleeper()).withRandom(new SplittableRandom(2)).withHeartbeats(never)
        .withLockIdentity(LockIdentity.of("test@b", "host", 1))).build();
    return Converger.builder(tierlock, TempDirLayout.in(tierlock.checkoutDirectory())).clock(clock)
        .random(new SplittableRandom(3)).parallelRestores(parallel).boundaries(boundaries).build();
  }

  /** Holds every archive's download on {@code release}, counting those held at once. */
  private void holdDownloads(CountDownLatch release, CountDownLatch reached, AtomicInteger held, AtomicInteger most) {
    for (ObjectKey key : archives) {
      remote.faults().beforeNext(DatastoreOperation.OPEN_STREAM, key::equals, () -> {
        most.accumulateAndGet(held.incrementAndGet(), Math::max);
        reached.countDown();
        try {
          release.await(HANG, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();  // the store call then fails as cancelled
        } finally {
          held.decrementAndGet();
        }
      });
    }
  }

  private List<String> prepared() throws IOException {
    Path staging = tierlock.checkoutDirectory().resolve(TempDirLayout.EXTENSIONS).resolve(".tierlock-staging");
    if (!Files.isDirectory(staging)) {
      return List.of();
    }
    try (Stream<Path> list = Files.list(staging)) {
      return list.map(p -> p.getFileName().toString()).toList();
    }
  }

  @Test
  void restoresArePreparedUpToTheBoundAtOnce_andAppliedInTheLockfilesOrder() throws Exception {
    plant(12);
    Converger converger = converger(4);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch fourHeld = new CountDownLatch(4);
    AtomicInteger held = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    holdDownloads(release, fourHeld, held, most);
    AtomicReference<ConvergeReport> report = new AtomicReference<>();
    Thread pass = new Thread(() -> report.set(converger.converge()));
    pass.start();

    assertThat(fourHeld.await(HANG, TimeUnit.SECONDS)).as("4 downloads at once").isTrue();
    assertThat(held.get()).isEqualTo(4);
    assertThat(remote.faults().pendingHooks()).as("no fifth download starts while four are held").isEqualTo(8);
    release.countDown();
    pass.join(TimeUnit.SECONDS.toMillis(HANG));

    assertThat(pass.isAlive()).isFalse();
    assertThat(most.get()).isEqualTo(4);
    assertThat(report.get().outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(report.get().restored()).extracting(ExtensionName::value).containsExactlyElementsOf(names);
    assertThat(remote.log().count(DatastoreOperation.OPEN_STREAM)).isEqualTo(12);
    assertThat(report.get().requests()).as("the workers' requests are counted").isEqualTo(remote.log().size());
    assertThat(prepared()).as("nothing left in staging").isEmpty();
  }

  @Test
  void theFirstRestores_areSwappedIn_whileTheLastIsStillDownloading() throws Exception {
    plant(6);
    CountDownLatch firstSwapped = new CountDownLatch(1);
    Converger converger = converger(2, boundary -> {
      if (boundary.equals("journal-swapped")) {
        firstSwapped.countDown();
      }
    });
    AtomicReference<Boolean> swappedBeforeTheLastDownload = new AtomicReference<>();
    remote.faults().beforeNext(DatastoreOperation.OPEN_STREAM, archives.get(5)::equals, () -> {
      try {
        // with every restore prepared before the first swap, this waits out its bound
        swappedBeforeTheLastDownload.set(firstSwapped.await(HANG, TimeUnit.SECONDS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });

    ConvergeReport report = converger.converge();

    assertThat(swappedBeforeTheLastDownload.get()).as("a restore was swapped in while the last one downloaded")
        .isTrue();
    assertThat(report.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(report.restored()).extracting(ExtensionName::value).containsExactlyElementsOf(names);
    assertThat(prepared()).as("nothing left in staging").isEmpty();
  }

  @Test
  void anInterrupt_whileThePassWaitsForALaterRestore_commitsTheOnesSwappedIn_andSavesTheState() throws Exception {
    plant(4);
    AtomicInteger swapped = new AtomicInteger();
    Converger converger = converger(2, boundary -> {
      if (boundary.equals("journal-swapped") && swapped.incrementAndGet() == 2) {
        Thread.currentThread().interrupt();  // the pass's own thread, before it waits for the third
      }
    });
    CountDownLatch release = new CountDownLatch(1);
    for (int i = 2; i < 4; i++) {
      remote.faults().beforeNext(DatastoreOperation.OPEN_STREAM, archives.get(i)::equals, () -> {
        try {
          release.await(HANG, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();  // the store call then fails as cancelled
        }
      });
    }
    AtomicReference<ConvergeReport> report = new AtomicReference<>();
    AtomicReference<Boolean> flag = new AtomicReference<>();
    Thread pass = new Thread(() -> {
      report.set(converger.converge());
      flag.set(Thread.interrupted());
    });
    pass.start();
    pass.join(TimeUnit.SECONDS.toMillis(HANG));
    release.countDown();

    assertThat(pass.isAlive()).isFalse();
    assertThat(flag.get()).as("the interrupt flag is set again").isTrue();
    assertThat(report.get().restored()).extracting(ExtensionName::value).containsExactly(names.get(0), names.get(1));
    assertThat(report.get().pending()).extracting(p -> p.name().value()).containsExactly(names.get(2), names.get(3));
    assertThat(report.get().warnings()).as("committed, and the state saved").isEmpty();
    assertThat(prepared()).as("nothing left in staging").isEmpty();
    remote.faults().clear();

    ConvergeReport next = converger.converge();
    assertThat(next.restored()).as("a cancelled restore is due again at once, not backed off").extracting(
        ExtensionName::value).containsExactly(names.get(2), names.get(3));
  }

  @Test
  void aPassHoldingTheLock_waitsForAStalledRestoreAtMostItsBound_thenLeavesTheRestToTheNextPass() throws Exception {
    plant(4);
    Converger converger = converger(2);
    CountDownLatch never = new CountDownLatch(1);
    AtomicReference<Boolean> stoppedByThePass = new AtomicReference<>(false);
    // the third download stalls; its clock runs on, past the bound, until the pass stops the workers
    remote.faults().beforeNext(DatastoreOperation.OPEN_STREAM, archives.get(2)::equals, () -> {
      while (true) {
        clock.advance(Converger.LONGEST_WAIT_UNDER_LOCK.plusSeconds(1));
        try {
          if (never.await(5, TimeUnit.MILLISECONDS)) {
            return;
          }
        } catch (InterruptedException e) {
          stoppedByThePass.set(true);
          Thread.currentThread().interrupt();  // the store call then fails as cancelled
          return;
        }
      }
    });
    AtomicReference<ConvergeReport> report = new AtomicReference<>();
    Thread pass = new Thread(() -> report.set(converger.converge()));
    pass.start();
    pass.join(TimeUnit.SECONDS.toMillis(HANG));
    never.countDown();

    assertThat(pass.isAlive()).as("the pass stopped waiting").isFalse();
    assertThat(stoppedByThePass.get()).isTrue();
    assertThat(report.get().restored()).extracting(ExtensionName::value).containsExactly(names.get(0), names.get(1));
    assertThat(report.get().pending()).extracting(p -> p.name().value()).containsExactly(names.get(2), names.get(3));
    assertThat(report.get().pending().get(0).reason()).contains("holding the checkout's lock, waited 30 s");
    assertThat(prepared()).as("nothing left in staging").isEmpty();
    remote.faults().clear();

    ConvergeReport next = converger.converge();
    assertThat(next.restored()).as("due again at once").extracting(ExtensionName::value)
        .containsExactly(names.get(2), names.get(3));
  }

  @Test
  void aBusyPass_countsTheRequestsItsWorkersMade() throws Exception {
    plant(3);
    Converger converger = converger(4);
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread other = new Thread(() -> tierlock.tryWithPulledExtensionsLock(() -> {
      holding.countDown();
      try {
        release.await(HANG, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return 1;
    }));
    other.start();
    assertThat(holding.await(HANG, TimeUnit.SECONDS)).isTrue();
    ConvergeReport report;
    try {
      report = converger.converge();
    } finally {
      release.countDown();
      other.join(TimeUnit.SECONDS.toMillis(HANG));
    }

    assertThat(report.outcome()).isEqualTo(ConvergeReport.Outcome.BUSY);
    assertThat(remote.log().count(DatastoreOperation.OPEN_STREAM)).as("the first restore was prepared").isPositive();
    assertThat(report.requests()).as("the workers' requests are counted").isEqualTo(remote.log().size());
    assertThat(prepared()).as("nothing left in staging").isEmpty();
  }

  @Test
  void aRestoreThatFailsMidBatch_isReportedAlone_andLeavesNothingStaged() throws Exception {
    plant(9);
    Converger converger = converger(3);
    remote.faults().failNext(DatastoreOperation.OPEN_STREAM, archives.get(4)::equals, 1, Fault.UNAVAILABLE);

    ConvergeReport report = converger.converge();

    assertThat(report.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    List<String> others = new ArrayList<>(names);
    others.remove(4);
    assertThat(report.restored()).extracting(ExtensionName::value).containsExactlyElementsOf(others);
    assertThat(report.pending()).extracting(p -> p.name().value()).containsExactly(names.get(4));
    assertThat(prepared()).isEmpty();
    assertThat(remote.openStreams()).isEmpty();
  }

  @Test
  void anInterruptedPass_stopsItsWorkers_andLeavesNothingStaged() throws Exception {
    plant(10);
    Converger converger = converger(3);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch threeHeld = new CountDownLatch(3);
    AtomicInteger held = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    holdDownloads(release, threeHeld, held, most);
    AtomicReference<ConvergeReport> report = new AtomicReference<>();
    Thread pass = new Thread(() -> report.set(converger.converge()));
    pass.start();
    assertThat(threeHeld.await(HANG, TimeUnit.SECONDS)).isTrue();

    pass.interrupt();
    pass.join(TimeUnit.SECONDS.toMillis(HANG));
    release.countDown();

    assertThat(pass.isAlive()).isFalse();
    assertThat(held.get()).as("every worker let go").isZero();
    assertThat(most.get()).isEqualTo(3);
    assertThat(remote.faults().pendingHooks()).as("no download started after the interrupt").isEqualTo(7);
    assertThat(report.get().restored()).isEmpty();
    assertThat(report.get().pending()).extracting(p -> p.name().value()).containsExactlyElementsOf(names);
    assertThat(prepared()).isEmpty();
    assertThat(remote.openStreams()).isEmpty();
    remote.faults().clear();
  }

  @Test
  void aPassWithNothingToDo_readsTheStatesHeaderAlone() throws Exception {
    plant(5);
    Converger converger = converger(2);
    assertThat(converger.converge().restored()).hasSize(5);
    Path state = converger.stateFile();
    String text = Files.readString(state, StandardCharsets.UTF_8);
    int header = text.indexOf('\n');
    // the records below the header no longer parse: only a pass that reads them can tell
    Files.writeString(state, text.substring(0, header + 1) + "{ not the records", StandardCharsets.UTF_8);

    ConvergeReport noop = converger.converge();

    assertThat(noop.outcome()).isEqualTo(ConvergeReport.Outcome.UNCHANGED);
    assertThat(noop.warnings()).isEmpty();
    assertThat(noop.requests()).isEqualTo(1);
    ConvergeReport full = converger.convergeFully();
    assertThat(full.warnings()).anyMatch(w -> w.contains("not valid"));
    assertThat(full.verified()).hasSize(5);
  }
}
