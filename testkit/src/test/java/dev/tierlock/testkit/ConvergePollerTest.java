package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.Heartbeats;
import dev.tierlock.LockIdentity;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.ConvergePoller.PollResult;
import dev.tierlock.install.ConvergePoller;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.Converger;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.install.Installer;
import dev.tierlock.spi.DatastoreUnavailableException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The poller of {@link Converger}: reloads once per change, defers on busy, caps failures, stops promptly. */
class ConvergePollerTest {

  private static final String TOOL = "@acme/tool";

  @TempDir Path temp;

  private final FakeRemote remote = FakeRemote.create();
  private final TestClock clock = TestClock.create();
  private final FakeRegistry registry = FakeRegistry.create();
  private final List<ConvergeReport> reloads = new ArrayList<>();
  private Tierlock a;
  private Tierlock b;
  private FaultyDatastore bStore;
  private Installer installer;
  private Converger converger;

  private Tierlock open(String name, dev.tierlock.spi.Datastore store) {
    Heartbeats never = (lock, interval, beat) -> () -> { };
    return Tierlock.builder().datastore(store).checkout(temp.resolve(name)).environment(Environment.system()
            .withClock(clock).withSleeper(clock.sleeper()).withRandom(new SplittableRandom(name.hashCode()))
            .withHeartbeats(never).withLockIdentity(LockIdentity.of("test@" + name, "host", 1))).build();
  }

  @BeforeEach
  void open() {
    for (int v = 1; v <= 4; v++) {
      registry.publish(TOOL, v + ".0.0", TestArchives.extension(TOOL, v + ".0.0").file("f.txt", "v" + v).build());
    }
    a = open("a", remote);
    bStore = FaultyDatastore.wrap(remote);
    b = open("b", bStore);
    installer = Installer.builder(a, TempDirLayout.in(a.checkoutDirectory())).registry(registry).clock(clock).build();
    installer.install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    converger = Converger.builder(b, TempDirLayout.in(b.checkoutDirectory())).clock(clock)
        .random(new SplittableRandom(7)).build();
    converger.converge();
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
  }

  private ConvergePoller poller(ConvergePoller.Options.Reload reload) {
    return converger.poller(ConvergePoller.Options.builder(reload).build());
  }

  private void upgrade(int version) {
    installer.install(InstallRequest.parse(TOOL + "@" + version + ".0.0"), Catalog.NONE);
  }

  @Test
  void reloadsExactlyOnce_perChangeOfTheLockfile_afterTheStateIsSaved() throws Exception {
    ConvergePoller poller = poller(report -> {
      assertThat(java.nio.file.Files.readString(converger.stateFile())).as("the state is saved before the reload")
          .contains(report.lockfileVersion().orElseThrow());
      reloads.add(report);
    });

    assertThat(poller.poll()).as("the baseline is what the boot pass left").isEqualTo(PollResult.UNCHANGED);
    upgrade(2);
    assertThat(poller.poll()).isEqualTo(PollResult.RELOADED);
    assertThat(poller.poll()).isEqualTo(PollResult.UNCHANGED);
    assertThat(poller.poll()).isEqualTo(PollResult.UNCHANGED);
    upgrade(3);
    assertThat(poller.poll()).isEqualTo(PollResult.RELOADED);

    assertThat(reloads).hasSize(2);
    assertThat(reloads).extracting(r -> r.restored().stream().map(ExtensionName::value).toList())
        .containsExactly(List.of(TOOL), List.of(TOOL));
  }

  @Test
  void aBusyPass_defersTheReload_untilAPassThatIsNotBusy() throws Exception {
    ConvergePoller poller = poller(reloads::add);
    upgrade(2);
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService holder = Executors.newSingleThreadExecutor();
    try {
      registry.publish("@acme/other", "1.0.0", TestArchives.extension("@acme/other", "1.0.0").file("o", "o").build());
      Installer local = Installer.builder(b, TempDirLayout.in(b.checkoutDirectory())).registry(registry).clock(clock)
          .build();
      Future<?> holding = holder.submit(() -> local.install(InstallRequest.parse("@acme/other@1.0.0"), update -> {
        // inside the install: B's pulled-extensions lock is held
        held.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }));
      held.await();
      assertThat(poller.poll()).isEqualTo(PollResult.DEFERRED);
      assertThat(poller.poll()).isEqualTo(PollResult.DEFERRED);
      assertThat(reloads).isEmpty();
      release.countDown();
      holding.get(10, TimeUnit.SECONDS);
    } finally {
      release.countDown();
      holder.shutdownNow();
    }

    assertThat(poller.poll()).isEqualTo(PollResult.RELOADED);
    assertThat(reloads).hasSize(1);
    assertThat(reloads.get(0).restored()).extracting(ExtensionName::value).containsExactly(TOOL);
  }

  @Test
  void aFailingReload_isTriedThreeTimesPerChange_thenWaitsForTheNextChange() {
    int[] calls = {0};
    ConvergePoller poller = poller(report -> {
      calls[0]++;
      throw new IllegalStateException("reload broke");
    });
    upgrade(2);

    assertThat(poller.poll()).isEqualTo(PollResult.RELOAD_FAILED);
    assertThat(poller.poll()).isEqualTo(PollResult.RELOAD_FAILED);
    assertThat(poller.poll()).isEqualTo(PollResult.RELOAD_FAILED);
    assertThat(poller.poll()).as("capped for this change").isEqualTo(PollResult.UNCHANGED);
    assertThat(poller.poll()).isEqualTo(PollResult.UNCHANGED);
    assertThat(calls[0]).isEqualTo(3);

    upgrade(3);
    assertThat(poller.poll()).as("a new change gets its own tries").isEqualTo(PollResult.RELOAD_FAILED);
    assertThat(calls[0]).isEqualTo(4);
  }

  @Test
  void aRestoreThatSucceedsOnItsRetry_movesTheGeneration_andReloadsAgain() {
    ConvergePoller poller = poller(reloads::add);
    upgrade(2);
    bStore.faults().failNext(DatastoreOperation.READ, k -> k.value().contains("pulled-archives"), 1, Fault.UNAVAILABLE);
    bStore.faults().failNext(DatastoreOperation.OPEN_STREAM, k -> k.value().contains("pulled-archives"), 1,
        Fault.UNAVAILABLE);

    assertThat(poller.poll()).as("the lockfile changed: reload, though the restore is pending")
        .isEqualTo(PollResult.RELOADED);
    assertThat(reloads.get(0).pending()).extracting(p -> p.name().value()).containsExactly(TOOL);
    bStore.faults().clear();
    assertThat(poller.poll()).as("the retry is not due yet").isEqualTo(PollResult.UNCHANGED);
    clock.advance(Duration.ofMinutes(1));
    assertThat(poller.poll()).as("the retry restored it: the generation moved").isEqualTo(PollResult.RELOADED);

    assertThat(reloads).hasSize(2);
    assertThat(reloads.get(1).restored()).extracting(ExtensionName::value).containsExactly(TOOL);
    assertThat(reloads.get(1).restoreGeneration()).isGreaterThan(reloads.get(0).restoreGeneration());
  }

  @Test
  void close_interruptsAPollStuckInItsRead_andReturnsWithinItsWait() throws Exception {
    ConvergePoller poller = converger.poller(ConvergePoller.Options.builder(reloads::add)
        .closeWait(Duration.ofSeconds(10)).build());
    CountDownLatch inRead = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    CountDownLatch readCancelled = new CountDownLatch(1);
    bStore.faults().beforeNext(DatastoreOperation.READ, k -> k.equals(Namespace.NONE.key(TierPath.LOCKFILE)), () -> {
      inRead.countDown();
      try {
        never.await();
      } catch (InterruptedException e) {
        readCancelled.countDown();
        Thread.currentThread().interrupt();
        throw new DatastoreUnavailableException("interrupted", e);
      }
    });
    CompletableFuture<PollResult> polling = CompletableFuture.supplyAsync(poller::poll);
    inRead.await();

    poller.close();

    // close returns once the poll has ended, or when its wait runs out with the read still stuck: only
    // in the first case was the read interrupted before it returned
    assertThat(readCancelled.getCount()).as("close interrupted the read in flight and waited for the poll to end")
        .isZero();
    PollResult result = polling.get(10, TimeUnit.SECONDS);
    assertThat(result).isEqualTo(PollResult.SKIPPED);
    assertThat(reloads).isEmpty();
    assertThat(poller.poll()).as("closed").isEqualTo(PollResult.SKIPPED);
  }

  @Test
  void overlappingPolls_areSkipped() throws Exception {
    ConvergePoller poller = poller(reloads::add);
    CountDownLatch inRead = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    bStore.faults().beforeNext(DatastoreOperation.READ, k -> k.equals(Namespace.NONE.key(TierPath.LOCKFILE)), () -> {
      inRead.countDown();
      try {
        go.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    CompletableFuture<PollResult> first = CompletableFuture.supplyAsync(poller::poll);
    inRead.await();

    assertThat(poller.poll()).isEqualTo(PollResult.SKIPPED);
    go.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(PollResult.UNCHANGED);
  }

  @Test
  void theInterval_isAtLeastOneSecond_andThirtyByDefault() {
    assertThat(ConvergePoller.Options.builder(r -> { }).build().interval()).isEqualTo(Duration.ofSeconds(30));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ConvergePoller.Options.builder(r -> { })
        .interval(Duration.ofMillis(999))).isInstanceOf(IllegalArgumentException.class);
  }
}
