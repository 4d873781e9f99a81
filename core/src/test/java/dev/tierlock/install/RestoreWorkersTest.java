package dev.tierlock.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restores of a pass prepared up to a bound at once: the bound reached and never passed, the
 * outcomes in the order asked whatever order they finish in, a failure that is its name's alone,
 * and an interrupt that stops the workers and discards what they staged. Synchronised on latches;
 * nothing is timed (the waits' bounds only turn a hang into a failure).
 */
class RestoreWorkersTest {

  private static final long HANG = 60;

  @TempDir Path temp;

  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger most = new AtomicInteger();
  private final AtomicInteger calls = new AtomicInteger();

  private static List<ExtensionName> names(int count) {
    return IntStream.range(0, count).mapToObj(i -> ExtensionName.of("@acme/e" + i)).toList();
  }

  /** Stages a tree for {@code name}, as a prepare does, and returns it prepared. */
  private PreparedInstall staged(ExtensionName name) {
    Path directory = temp.resolve(Preparer.PREFIX + name.value().replace('/', '_').replace("@", ""));
    try {
      Files.createDirectories(directory.resolve(Preparer.TREE));
      Files.writeString(directory.resolve(Preparer.TREE).resolve("f.txt"), name.value());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new PreparedInstall(new InstallRequest(name, VersionConstraint.LOCKED, InstallRequest.RecordPolicy.NEVER),
        new ExtensionManifest(name, "1.0.0", Map.of()), "a".repeat(64), InstallResult.Source.TIER, null, null,
        directory.resolve(Preparer.TREE), List.of());
  }

  /** A prepare that counts how many run at once, and blocks until {@code gate} of its name opens. */
  private Function<ExtensionName, PreparedInstall> blocking(Map<ExtensionName, CountDownLatch> gates,
      CountDownLatch started) {
    return name -> {
      calls.incrementAndGet();
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      started.countDown();
      try {
        if (!gates.get(name).await(HANG, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never opened the gate of " + name);
        }
        return staged(name);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw InstallException.failed(name.value(), "interrupted", e);
      } finally {
        running.decrementAndGet();
      }
    };
  }

  private static Map<ExtensionName, CountDownLatch> gates(List<ExtensionName> names) {
    Map<ExtensionName, CountDownLatch> gates = new ConcurrentHashMap<>();
    names.forEach(n -> gates.put(n, new CountDownLatch(1)));
    return gates;
  }

  /** Takes every outcome of {@code workers} prepared for {@code names}, in order, closing the handle. */
  private static List<RestoreWorkers.Outcome> drain(RestoreWorkers workers, List<ExtensionName> names) {
    List<RestoreWorkers.Outcome> outcomes = new ArrayList<>();
    try (RestoreWorkers.Ordered ordered = workers.start(names)) {
      while (ordered.hasNext()) {
        outcomes.add(ordered.next());
      }
    }
    return outcomes;
  }

  private long stagedTrees() throws IOException {
    try (var list = Files.list(temp)) {
      return list.count();
    }
  }

  @Test
  void theBoundIsReachedAtOnce_andNeverPassed_andTheOutcomesComeInTheOrderAsked() throws Exception {
    List<ExtensionName> names = names(10);
    Map<ExtensionName, CountDownLatch> gates = gates(names);
    CountDownLatch fourStarted = new CountDownLatch(4);
    RestoreWorkers workers = new RestoreWorkers(4, blocking(gates, fourStarted));
    AtomicReference<List<RestoreWorkers.Outcome>> outcomes = new AtomicReference<>();
    Thread pass = new Thread(() -> outcomes.set(drain(workers, names)));
    pass.start();

    assertThat(fourStarted.await(HANG, TimeUnit.SECONDS)).as("4 prepares run at once").isTrue();
    assertThat(running.get()).isEqualTo(4);
    assertThat(calls.get()).as("no fifth starts while four run").isEqualTo(4);
    // the last ones finish first
    for (int i = names.size() - 1; i >= 0; i--) {
      gates.get(names.get(i)).countDown();
    }
    pass.join(TimeUnit.SECONDS.toMillis(HANG));

    assertThat(pass.isAlive()).isFalse();
    assertThat(most.get()).isEqualTo(4);
    assertThat(calls.get()).isEqualTo(10);
    assertThat(outcomes.get()).extracting(RestoreWorkers.Outcome::name).containsExactlyElementsOf(names);
    assertThat(outcomes.get()).allMatch(o -> o.prepared() != null && o.prepared().name().equals(o.name()));
    outcomes.get().forEach(o -> o.prepared().close());
  }

  @Test
  void outcomesFinishedInReverse_stillComeInTheOrderAsked() throws Exception {
    List<ExtensionName> names = names(3);
    Map<ExtensionName, CountDownLatch> gates = gates(names);
    CountDownLatch allStarted = new CountDownLatch(3);
    List<ExtensionName> finished = java.util.Collections.synchronizedList(new ArrayList<>());
    Function<ExtensionName, PreparedInstall> inner = blocking(gates, allStarted);
    Map<ExtensionName, CountDownLatch> done = gates(names);
    RestoreWorkers workers = new RestoreWorkers(3, name -> {
      PreparedInstall p = inner.apply(name);
      finished.add(name);
      done.get(name).countDown();
      return p;
    });
    AtomicReference<List<RestoreWorkers.Outcome>> outcomes = new AtomicReference<>();
    Thread pass = new Thread(() -> outcomes.set(drain(workers, names)));
    pass.start();
    assertThat(allStarted.await(HANG, TimeUnit.SECONDS)).isTrue();
    for (int i = 2; i >= 0; i--) {
      gates.get(names.get(i)).countDown();
      assertThat(done.get(names.get(i)).await(HANG, TimeUnit.SECONDS)).isTrue();
    }
    pass.join(TimeUnit.SECONDS.toMillis(HANG));

    assertThat(finished).containsExactly(names.get(2), names.get(1), names.get(0));
    assertThat(outcomes.get()).extracting(RestoreWorkers.Outcome::name).containsExactlyElementsOf(names);
    outcomes.get().forEach(o -> o.prepared().close());
  }

  @Test
  void aFailureMidBatch_isThatNamesOutcomeAlone() {
    List<ExtensionName> names = names(6);
    RestoreWorkers workers = new RestoreWorkers(3, name -> {
      if (name.equals(names.get(2))) {
        throw InstallException.failed(name.value(), "the tier broke mid-stream", null);
      }
      return staged(name);
    });

    List<RestoreWorkers.Outcome> outcomes = drain(workers, names);

    assertThat(outcomes).extracting(RestoreWorkers.Outcome::name).containsExactlyElementsOf(names);
    assertThat(outcomes.get(2).prepared()).isNull();
    assertThat(outcomes.get(2).failure()).hasMessageContaining("the tier broke mid-stream");
    assertThat(outcomes).filteredOn(o -> o.prepared() != null).hasSize(5);
    outcomes.forEach(o -> {
      if (o.prepared() != null) {
        o.prepared().close();
      }
    });
  }

  @Test
  void anOutcome_isHandedOver_whileTheLaterOnesAreStillBeingPrepared() throws Exception {
    List<ExtensionName> names = names(6);
    Map<ExtensionName, CountDownLatch> gates = gates(names);
    CountDownLatch started = new CountDownLatch(3);
    RestoreWorkers workers = new RestoreWorkers(3, blocking(gates, started));
    try (RestoreWorkers.Ordered ordered = workers.start(names)) {
      assertThat(started.await(HANG, TimeUnit.SECONDS)).isTrue();
      gates.get(names.get(0)).countDown();

      RestoreWorkers.Outcome first = ordered.next();

      assertThat(first.name()).isEqualTo(names.get(0));
      assertThat(first.prepared()).isNotNull();
      assertThat(gates.get(names.get(1)).getCount()).as("the second is still being prepared").isEqualTo(1);
      first.prepared().close();
      names.forEach(n -> gates.get(n).countDown());
      for (int i = 1; i < names.size(); i++) {
        RestoreWorkers.Outcome next = ordered.next();
        assertThat(next.name()).isEqualTo(names.get(i));
        next.prepared().close();
      }
      assertThat(ordered.hasNext()).isFalse();
    }
    assertThat(stagedTrees()).isZero();
  }

  @Test
  void closedEarly_stopsTheWorkers_andDiscardsWhatWasNotTaken() throws Exception {
    List<ExtensionName> names = names(8);
    Map<ExtensionName, CountDownLatch> gates = gates(names);
    CountDownLatch started = new CountDownLatch(2);
    RestoreWorkers workers = new RestoreWorkers(2, blocking(gates, started));
    RestoreWorkers.Ordered ordered = workers.start(names);
    assertThat(started.await(HANG, TimeUnit.SECONDS)).isTrue();
    gates.get(names.get(0)).countDown();
    RestoreWorkers.Outcome first = ordered.next();

    ordered.close();

    assertThat(running.get()).as("every worker ended").isZero();
    assertThat(stagedTrees()).as("only the one taken is left, the caller's").isEqualTo(1);
    first.prepared().close();
    assertThat(stagedTrees()).isZero();
    assertThat(ordered.next().failure()).as("after close, every outcome is a failure").isInstanceOf(
        InstallException.class);
  }

  @Test
  void anInterrupt_stopsTheWorkers_discardsWhatTheyStagedAndWasNotTaken_andFailsEveryNameLeft() throws Exception {
    List<ExtensionName> names = names(8);
    Map<ExtensionName, CountDownLatch> gates = gates(names);
    gates.get(names.get(0)).countDown();  // the first one is staged and taken before the interrupt
    gates.get(names.get(2)).countDown();  // the third one is staged, and never taken
    CountDownLatch started = new CountDownLatch(4);  // the first, the third, then two that block
    RestoreWorkers workers = new RestoreWorkers(2, blocking(gates, started));
    AtomicReference<List<RestoreWorkers.Outcome>> outcomes = new AtomicReference<>();
    AtomicReference<Boolean> flag = new AtomicReference<>();
    Thread pass = new Thread(() -> {
      outcomes.set(drain(workers, names));
      flag.set(Thread.currentThread().isInterrupted());
    });
    pass.start();
    assertThat(started.await(HANG, TimeUnit.SECONDS)).isTrue();
    assertThat(stagedTrees()).as("the first and third restores are staged").isEqualTo(2);

    pass.interrupt();
    pass.join(TimeUnit.SECONDS.toMillis(HANG));

    assertThat(pass.isAlive()).isFalse();
    assertThat(flag.get()).as("the interrupt flag is set again").isTrue();
    assertThat(running.get()).as("every worker ended").isZero();
    assertThat(calls.get()).as("no prepare started after the interrupt").isEqualTo(4);
    assertThat(outcomes.get()).extracting(RestoreWorkers.Outcome::name).containsExactlyElementsOf(names);
    assertThat(outcomes.get().get(0).prepared()).as("the one taken is the caller's").isNotNull();
    assertThat(stagedTrees()).as("what was staged and not taken is discarded").isEqualTo(1);
    outcomes.get().get(0).prepared().close();
    assertThat(outcomes.get().subList(1, names.size()))
        .allMatch(o -> o.prepared() == null && o.failure() instanceof InstallException);
  }

  @Test
  void aRestoreThatFinishesAfterTheInterrupt_ofTheThreadWaitingForIt_isClosed() throws Exception {
    List<ExtensionName> names = names(2);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    // a prepare that finishes whatever the interrupt (as blocking I/O does): it goes on once the
    // workers are stopped, which happens only after the thread waiting for it was interrupted
    RestoreWorkers workers = new RestoreWorkers(2, name -> {
      if (name.equals(names.get(0))) {
        started.countDown();
        try {
          never.await(HANG, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          // finishes all the same
        }
      }
      return staged(name);
    });
    AtomicReference<List<RestoreWorkers.Outcome>> outcomes = new AtomicReference<>();
    Thread pass = new Thread(() -> outcomes.set(drain(workers, names)));
    pass.start();
    assertThat(started.await(HANG, TimeUnit.SECONDS)).isTrue();

    pass.interrupt();
    pass.join(TimeUnit.SECONDS.toMillis(HANG));

    assertThat(pass.isAlive()).isFalse();
    assertThat(outcomes.get()).as("the waiting thread is told each failed").allMatch(o -> o.prepared() == null);
    assertThat(stagedTrees()).as("what was prepared and never handed over is closed").isZero();
  }

  @Test
  void anError_inAPrepare_stopsTheWorkers_andIsThrown() {
    List<ExtensionName> names = names(5);
    RestoreWorkers workers = new RestoreWorkers(2, name -> {
      if (name.equals(names.get(1))) {
        throw new AssertionError("the prepare broke");
      }
      return staged(name);
    });

    List<RestoreWorkers.Outcome> taken = new ArrayList<>();
    assertThatThrownBy(() -> {
      try (RestoreWorkers.Ordered ordered = workers.start(names)) {
        while (ordered.hasNext()) {
          taken.add(ordered.next());
        }
      }
    }).isInstanceOf(AssertionError.class).hasMessage("the prepare broke");
    taken.forEach(o -> o.prepared().close());
    assertThat(taken).as("at most the one before it, whatever finished first").extracting(
        RestoreWorkers.Outcome::name).isSubsetOf(names.get(0));
  }

  @Test
  void aBoundOfOne_preparesOnTheCallingThread() {
    Thread caller = Thread.currentThread();
    List<Thread> threads = new ArrayList<>();
    RestoreWorkers workers = new RestoreWorkers(1, name -> {
      threads.add(Thread.currentThread());
      return staged(name);
    });

    drain(workers, names(3)).forEach(o -> o.prepared().close());

    assertThat(threads).containsExactly(caller, caller, caller);
  }

  @Test
  void aBoundBelowOne_isRefused() {
    assertThatThrownBy(() -> new RestoreWorkers(0, this::staged)).isInstanceOf(IllegalArgumentException.class);
  }
}
