package dev.tierlock.testkit;

import static dev.tierlock.testkit.ConvergeFixture.identities;
import static dev.tierlock.testkit.ConvergeScenarios.ALPHA;
import static dev.tierlock.testkit.ConvergeScenarios.BETA;
import static dev.tierlock.testkit.ConvergeScenarios.archiveCalls;
import static dev.tierlock.testkit.ConvergeScenarios.names;
import static dev.tierlock.testkit.ConvergeScenarios.publish;
import static dev.tierlock.testkit.InstallFixture.staging;
import static dev.tierlock.testkit.InstallFixture.tree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** The {@link ConvergeContract} cases of failures: retries with backoff, unrestorable entries, a busy checkout. */
final class ConvergeFailureScenarios {

  private final ConvergeFixture f;

  ConvergeFailureScenarios(ConvergeFixture fixture) {
    this.f = fixture;
  }

  void aTransientArchiveFailure_isPending_andRetriedWithBackoff_doublingUpToAnHour() {
    byte[] alpha = publish(f, ALPHA, "1.0.0");
    publish(f, BETA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    ObjectKey key = ConvergeFixture.archiveKey(ALPHA, alpha);
    b.checkout().store().faults().failNext(DatastoreOperation.OPEN_STREAM, key::equals, 1, Fault.UNAVAILABLE);
    Instant start = f.clock().instant();

    ConvergeReport first = b.converge();

    assertThat(first.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(first.restored()).isEmpty();
    assertThat(first.unrestorable()).isEmpty();
    ConvergeReport.Pending pending = first.pending().stream().filter(p -> p.name().value().equals(ALPHA)).findFirst()
        .orElseThrow();
    assertThat(first.pending()).hasSize(1);
    assertThat(pending.attempts()).isEqualTo(1);
    assertThat(pending.nextAttempt()).isBetween(start.plusSeconds(45), start.plusSeconds(60));
    assertThat(tree(b.root(ALPHA))).isEmpty();

    f.clock().set(pending.nextAttempt().minusSeconds(1));
    a.install(BETA + "@1.0.0");  // the lockfile changes, so the pass looks at every entry
    b.log().clear();
    ConvergeReport early = b.converge();
    assertThat(names(early.restored())).containsExactly(BETA);
    assertThat(names(early.skipped())).as("not due yet").containsExactly(ALPHA);
    assertThat(early.pending()).containsExactly(pending);
    assertThat(archiveCalls(b.log())).as("no request for it").doesNotContain(key.value());

    Instant next = pending.nextAttempt();
    for (int attempt = 2; attempt <= 8; attempt++) {
      f.clock().set(next);
      b.checkout().store().faults().failNext(DatastoreOperation.OPEN_STREAM, key::equals, 1, Fault.UNAVAILABLE);
      b.log().clear();
      Instant now = f.clock().instant();
      ConvergeReport retried = b.converge();
      assertThat(archiveCalls(b.log())).as("attempt %d is made", attempt).contains(key.value());
      assertThat(retried.pending()).singleElement().extracting(ConvergeReport.Pending::attempts).isEqualTo(attempt);
      Duration cap = Duration.ofMinutes(1L << (attempt - 1));
      cap = cap.compareTo(Duration.ofHours(1)) > 0 ? Duration.ofHours(1) : cap;
      next = retried.pending().get(0).nextAttempt();
      assertThat(Duration.between(now, next)).as("wait before attempt %d", attempt + 1)
          .isBetween(cap.multipliedBy(3).dividedBy(4), cap);
    }
    f.clock().set(next);
    ConvergeReport restored = b.converge();

    assertThat(names(restored.restored())).containsExactly(ALPHA);
    assertThat(restored.pending()).isEmpty();
    assertThat(tree(b.root(ALPHA))).isEqualTo(tree(a.root(ALPHA)));
  }

  void aMissingTierArchive_isUnrestorable_andNotRetried_untilAFullPass() {
    byte[] alpha = publish(f, ALPHA, "1.0.0");
    publish(f, BETA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ObjectKey key = ConvergeFixture.archiveKey(ALPHA, alpha);
    f.datastore().delete(key, WriteCondition.none());
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);

    ConvergeReport first = b.converge();

    assertThat(first.unrestorable()).extracting(u -> u.name().value(), ConvergeReport.Unrestorable::reason)
        .containsExactly(tuple(ALPHA, ConvergeReport.Unrestorable.Reason.ARCHIVE_MISSING));
    assertThat(first.restored()).isEmpty();
    assertThat(first.pending()).isEmpty();
    assertThat(tree(b.root(ALPHA))).isEmpty();
    f.clock().advance(Duration.ofHours(5));
    b.log().clear();
    assertThat(b.converge().outcome()).isEqualTo(ConvergeReport.Outcome.UNCHANGED);
    a.install(BETA + "@1.0.0");
    f.clock().advance(Duration.ofHours(5));
    ConvergeReport later = b.converge();
    assertThat(names(later.restored())).containsExactly(BETA);
    assertThat(names(later.skipped())).containsExactly(ALPHA);
    assertThat(later.unrestorable()).extracting(u -> u.name().value()).containsExactly(ALPHA);
    assertThat(archiveCalls(b.log())).as("not retried").doesNotContain(key.value());

    f.datastore().write(key, ObjectBody.of(alpha), WriteCondition.none(), ObjectMetadata.EMPTY);  // a peer stores it
    assertThat(b.converge().restored()).as("a gated pass still does not retry it").isEmpty();
    ConvergeReport full = b.converger().convergeFully();

    assertThat(names(full.restored())).containsExactly(ALPHA);
    assertThat(full.unrestorable()).isEmpty();
    assertThat(tree(b.root(ALPHA))).isEqualTo(tree(a.root(ALPHA)));
  }

  void aMissingTierArchive_isRestored_onceItsEntryChanges() {
    byte[] alpha = publish(f, ALPHA, "1.0.0");
    publish(f, ALPHA, "2.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    f.datastore().delete(ConvergeFixture.archiveKey(ALPHA, alpha), WriteCondition.none());
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(b.converge().unrestorable()).extracting(ConvergeReport.Unrestorable::reason)
        .containsExactly(ConvergeReport.Unrestorable.Reason.ARCHIVE_MISSING);
    f.clock().advance(Duration.ofHours(3));

    a.install(ALPHA + "@2.0.0");
    ConvergeReport changed = b.converge();

    assertThat(names(changed.restored())).containsExactly(ALPHA);
    assertThat(changed.unrestorable()).isEmpty();
    assertThat(tree(b.root(ALPHA))).isEqualTo(tree(a.root(ALPHA))).containsKey("lib/only-2.0.0.txt");
  }

  void aTamperedTierArchive_isUnrestorable_andNothingIsSwapped() {
    publish(f, ALPHA, "1.0.0");
    byte[] alpha2 = publish(f, ALPHA, "2.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(names(b.converge().restored())).containsExactly(ALPHA);
    TreeMap<String, String> v1 = tree(b.root(ALPHA));
    TreeMap<String, String> files = identities(b.root(ALPHA));
    a.install(ALPHA + "@2.0.0");
    byte[] evil = TestArchives.extension(ALPHA, "2.0.0").file("lib/main.txt", "evil").build();
    f.datastore().write(ConvergeFixture.archiveKey(ALPHA, alpha2), ObjectBody.of(evil), WriteCondition.none(),
        ObjectMetadata.EMPTY);

    ConvergeReport r = b.converge();

    assertThat(r.unrestorable()).extracting(u -> u.name().value(), ConvergeReport.Unrestorable::reason)
        .containsExactly(tuple(ALPHA, ConvergeReport.Unrestorable.Reason.TAMPERED));
    assertThat(r.restored()).isEmpty();
    assertThat(r.pending()).isEmpty();
    assertThat(tree(b.root(ALPHA))).as("still v1, byte for byte").isEqualTo(v1);
    assertThat(identities(b.root(ALPHA))).as("untouched").isEqualTo(files);
    assertThat(staging(b.checkout())).isEmpty();
    f.clock().advance(Duration.ofHours(2));
    assertThat(b.converge().restored()).isEmpty();
    assertThat(tree(b.root(ALPHA))).isEqualTo(v1);
  }

  void aPassWhileTheCheckoutIsBusy_isBusyAtOnce_swapsNothing_andTheNextPassConverges() throws Exception {
    publish(f, ALPHA, "1.0.0");
    publish(f, BETA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    a.install(BETA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    CountDownLatch saving = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> install = pool.submit(() -> b.checkout().installer().install(InstallRequest.parse(ALPHA), update -> {
        saving.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted in the catalog save", e);
        }
      }));
      assertThat(saving.await(30, TimeUnit.SECONDS)).as("B's install reached its catalog save").isTrue();
      List<Duration> sleeps = f.clock().sleeps();

      ConvergeReport busy = pool.submit(b::converge).get(30, TimeUnit.SECONDS);

      assertThat(busy.outcome()).isEqualTo(ConvergeReport.Outcome.BUSY);
      assertThat(busy.restored()).isEmpty();
      assertThat(busy.removed()).isEmpty();
      assertThat(busy.warnings()).as("busy for the lock the install holds")
          .anyMatch(w -> w.contains("another install, removal or convergence"));
      assertThat(tree(b.root(BETA))).as("nothing swapped").isEmpty();
      assertThat(f.clock().sleeps()).as("no wait for the lock").isEqualTo(sleeps);
      release.countDown();
      install.get(30, TimeUnit.SECONDS);
    } finally {
      release.countDown();
      pool.shutdownNow();
    }

    ConvergeReport next = b.converge();

    assertThat(next.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(names(next.restored())).containsExactly(BETA);
    assertThat(names(next.verified())).containsExactly(ALPHA);
    assertThat(tree(b.root(BETA))).isEqualTo(tree(a.root(BETA)));
  }

  void aPassWithoutAReadableLockfile_isReportedAsSuch_andTouchesNothing() {
    publish(f, ALPHA, "1.0.0");
    publish(f, ALPHA, "2.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    ConvergeReport none = b.converge();
    assertThat(none.outcome()).isEqualTo(ConvergeReport.Outcome.NO_LOCKFILE);
    assertThat(none.lockfileVersion()).isEmpty();
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    assertThat(names(b.converge().restored())).containsExactly(ALPHA);
    TreeMap<String, String> v1 = tree(b.root(ALPHA));
    a.install(ALPHA + "@2.0.0");
    ObjectKey lockfile = Namespace.NONE.key(TierPath.LOCKFILE);

    b.checkout().store().faults().failNext(DatastoreOperation.READ, lockfile::equals, 1, Fault.UNAVAILABLE);
    ConvergeReport unavailable = b.converge();
    f.datastore().write(lockfile, ObjectBody.of("{ not json".getBytes(StandardCharsets.UTF_8)), WriteCondition.none(),
        ObjectMetadata.EMPTY);
    ConvergeReport unreadable = b.converge();

    assertThat(unavailable.outcome()).isEqualTo(ConvergeReport.Outcome.UNAVAILABLE);
    assertThat(unreadable.outcome()).isEqualTo(ConvergeReport.Outcome.LOCKFILE_UNREADABLE);
    for (ConvergeReport r : List.of(unavailable, unreadable)) {
      assertThat(r.restored()).isEmpty();
      assertThat(r.removed()).isEmpty();
      assertThat(r.lockfileVersion()).isEmpty();
    }
    assertThat(tree(b.root(ALPHA))).as("still v1").isEqualTo(v1);
  }
}
