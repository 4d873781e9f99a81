package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.CommitMode;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileEntry;
import dev.tierlock.LockfileTransaction;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Group commit under faults: callers queued behind a running batch are merged into one batch whose
 * changes may throw, whose names a peer may change while it runs, and whose publish may fail. The
 * oracle checks every name of every caller against the final lockfile: it holds the value of the
 * last caller in queue order whose change wrote it and did not throw, unless a peer really wrote
 * that name, and then every caller that wrote it was told (a conflict, or a failed publish whose
 * record the next run rebased); a caller whose change threw left nothing.
 */
class GroupCommitPropertyTest {

  private static final List<String> SHARED = List.of("@s/a", "@s/b", "@s/c");

  /** One queued caller: the names it sets, whether it throws at the end, and a peer write it triggers. */
  record Caller(List<String> names, boolean throwsAtEnd, Optional<String> peerWrites) {}

  /** A scenario: the mode, the callers in queue order, and whether the batch's publish fails. */
  record Scenario(CommitMode mode, List<Caller> callers, boolean publishFails) {}

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<String> names = Arbitraries.of(SHARED);
    Arbitrary<Caller> caller = Combinators.combine(names.list().ofMinSize(1).ofMaxSize(2),
        Arbitraries.frequency(net.jqwik.api.Tuple.of(4, false), net.jqwik.api.Tuple.of(1, true)),
        Arbitraries.frequency(net.jqwik.api.Tuple.of(3, Optional.<String>empty()),
            net.jqwik.api.Tuple.of(1, Optional.of("@s/a")), net.jqwik.api.Tuple.of(1, Optional.of("@s/c"))))
        .as(Caller::new);
    return Combinators.combine(Arbitraries.of(CommitMode.class), caller.list().ofMinSize(1).ofMaxSize(4),
        Arbitraries.frequency(net.jqwik.api.Tuple.of(4, false), net.jqwik.api.Tuple.of(1, true))).as(Scenario::new);
  }

  @Property(tries = 60)
  void everyCallersNameEndsAsTheLastWriterLeftIt_orAPeerWroteItAndTheCallerWasTold(
      @ForAll("scenarios") Scenario scenario) throws Exception {
    Path dir = Files.createTempDirectory("group-property");
    try (FakeRemote remote = FakeRemote.create()) {
      TestClock clock = TestClock.create();
      // the checkout's own way to the store, so that its publish fails and the peer's writes do not
      FaultyDatastore own = FaultyDatastore.wrap(remote);
      QueueWatch queue = new QueueWatch();
      TestCheckout checkout = TestCheckout.builder(own, dir.resolve("c"), clock).commitMode(scenario.mode())
          .queueing(queue).build();
      TestCheckout peer = TestCheckout.builder(remote, dir.resolve("peer"), clock).commitMode(CommitMode.OPTIMISTIC)
          .build();
      List<String> peerWrote = new ArrayList<>();
      CountDownLatch inside = new CountDownLatch(1);
      CountDownLatch go = new CountDownLatch(1);
      AtomicBoolean goLate = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      CompletableFuture<TransactionResult> leader = start(threads, checkout.transaction(), "leader", tx -> {
        tx.put(ExtensionName.of("@l/x"), checkout.entry("1.0.0"));
        inside.countDown();
        if (!opened(go)) {
          goLate.set(true);
        }
      });
      assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
      List<CompletableFuture<TransactionResult>> outcomes = new ArrayList<>();
      for (int i = 0; i < scenario.callers().size(); i++) {
        Caller c = scenario.callers().get(i);
        String version = "2.0." + i;
        int index = i;
        outcomes.add(queued(queue, threads, start(threads, checkout.transaction(), "f" + i, tx -> {
          for (String name : c.names()) {
            tx.put(ExtensionName.of(name), checkout.entry(version));
          }
          tx.put(ExtensionName.of("@f" + index + "/own"), checkout.entry(version));
          c.peerWrites().ifPresent(name -> {
            peer.put(name, "9.0." + index);
            peerWrote.add(name);
          });
          if (c.throwsAtEnd()) {
            throw new IllegalStateException("caller " + index + " changed its mind");
          }
        })));
      }
      if (scenario.publishFails()) {
        own.faults().failNext(DatastoreOperation.WRITE, Namespace.NONE.key(TierPath.LOCKFILE)::equals, 1000,
            Fault.UNAVAILABLE);
      }
      go.countDown();
      leader.handle((r, e) -> null).get(60, TimeUnit.SECONDS);
      assertThat(goLate).as("the leader held its batch open until every caller queued behind it").isFalse();
      Map<Integer, Throwable> failed = new HashMap<>();
      for (int i = 0; i < outcomes.size(); i++) {
        try {
          TransactionResult r = outcomes.get(i).get(60, TimeUnit.SECONDS);
          assertThat(r.status()).as("caller %s in %s", i, scenario).isIn(TransactionStatus.PUBLISHED,
              TransactionStatus.NO_CHANGE);
        } catch (ExecutionException e) {
          failed.put(i, e.getCause());
        }
      }
      own.faults().clear();
      // the next run publishes whatever is pending, rebased onto the peer's writes
      List<String> settleWarnings = new ArrayList<>();
      try {
        settleWarnings.addAll(checkout.transaction().run(tx -> { }).warnings());
      } catch (LockfileConflictException e) {
        settleWarnings.addAll(e.warnings());
      }
      Map<ExtensionName, LockfileEntry> end = checkout.shared().entries();

      for (int i = 0; i < scenario.callers().size(); i++) {
        Caller c = scenario.callers().get(i);
        Throwable why = failed.get(i);
        ExtensionName ownName = ExtensionName.of("@f" + i + "/own");
        if (c.throwsAtEnd()) {
          assertThat(why).as("caller %s threw, in %s", i, scenario).isInstanceOf(IllegalStateException.class);
          assertThat(end).as("caller %s threw: nothing of it is published, in %s", i, scenario).doesNotContainKey(ownName);
          continue;
        }
        assertThat(why).as("caller %s, in %s", i, scenario).satisfiesAnyOf(
            w -> assertThat(w).isNull(),
            w -> assertThat(w).isInstanceOf(LockfileConflictException.class),
            w -> assertThat(w).isInstanceOf(ManagedConfigUnpublishedException.class));
        assertThat(Optional.ofNullable(end.get(ownName)).map(LockfileEntry::version)).as("caller %s's own name, in %s",
            i, scenario).contains("2.0." + i);
        for (String name : c.names()) {
          LockfileEntry now = end.get(ExtensionName.of(name));
          int last = lastWriter(scenario, name);
          if (now != null && now.version().equals("2.0." + last)) {
            continue; // the last caller in queue order that wrote it
          }
          assertThat(peerWrote).as("caller %s's %s is %s: only a peer that wrote it may have it, in %s", i, name, now,
              scenario).contains(name);
          assertThat(told(why, settleWarnings, name)).as("caller %s was told about %s (%s), in %s", i, name, why,
              scenario).isTrue();
        }
      }
    } finally {
      deleteQuietly(dir);
    }
  }

  /** Returns the index of the last caller whose change writes {@code name} and does not throw. */
  private static int lastWriter(Scenario scenario, String name) {
    int last = -1;
    for (int i = 0; i < scenario.callers().size(); i++) {
      Caller c = scenario.callers().get(i);
      if (!c.throwsAtEnd() && c.names().contains(name)) {
        last = i;
      }
    }
    return last;
  }

  /** Whether {@code name}'s drop was told: a conflict naming it, or an unpublished change whose rebase warned of it. */
  private static boolean told(Throwable why, List<String> settleWarnings, String name) {
    if (why instanceof LockfileConflictException conflict) {
      return conflict.conflicts().stream().anyMatch(c -> c.name().value().equals(name));
    }
    if (why instanceof ManagedConfigUnpublishedException) {
      return settleWarnings.stream().anyMatch(w -> w.contains(name));
    }
    return false;
  }

  private static CompletableFuture<TransactionResult> start(List<Thread> threads, LockfileTransaction transaction,
      String name, java.util.function.Consumer<dev.tierlock.TransactionContext> change) {
    CompletableFuture<TransactionResult> result = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        result.complete(transaction.run(change));
      } catch (Throwable t) {
        result.completeExceptionally(t);
      }
    }, name);
    threads.add(thread);
    thread.start();
    return result;
  }

  /** Returns {@code result} once the checkout says the last started caller queued behind the runs before it. */
  private static CompletableFuture<TransactionResult> queued(QueueWatch queue, List<Thread> threads,
      CompletableFuture<TransactionResult> result) throws InterruptedException {
    queue.await(threads.get(threads.size() - 1));
    return result;
  }

  /** Waits at most 60 s for {@code latch} and returns whether it opened. */
  private static boolean opened(CountDownLatch latch) {
    try {
      return latch.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void deleteQuietly(Path dir) throws IOException {
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
