package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.CommitMode;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectKey;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adversarial review of the optimistic warm path. An optimistic run computes its change's delta
 * against the lockfile it starts from, which on the warm path is this instance's in-memory memo of
 * the cache, and {@code ChangeEditor} drops a put of the value already there. When the memo is
 * stale, a put that restores the value the memo holds is no change at all against the memo, so it
 * is neither written nor checked against the shared lockfile: the name the change wrote is never
 * rebased, no conflict is raised, and the caller is told NO_CHANGE (or PUBLISHED without that name).
 *
 * <p>Promise broken: "no change is dropped without the caller being told"; CommitMode.OPTIMISTIC's
 * own contract that a change "is judged ... on the names it writes" and that "a peer's change to
 * the same name wins and is reported as lockfile_conflict". A LOCKED run of the very same change
 * publishes the value.
 */
class OptimisticStaleViewTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final ExtensionName X = ExtensionName.of("@s/x");
  private static final ExtensionName Y = ExtensionName.of("@s/y");
  private static final LockfileEntry V1 = LockfileEntry.builder("1.0.0", "2026-01-01T00:00:00.000Z").build();
  private static final LockfileEntry V2 = LockfileEntry.builder("2.0.0", "2026-01-01T00:00:00.000Z").build();

  @TempDir Path dir;

  private final FakeRemote remote = FakeRemote.create();
  private final CountingDatastore counting = CountingDatastore.wrap(remote);
  private final TestClock clock = TestClock.create();

  @AfterEach
  void tearDown() {
    remote.close();
  }

  /**
   * Two Tierlock instances (two processes, or a CLI beside a server) on ONE checkout directory.
   *
   * <ol>
   *   <li>instance A publishes x=1.0.0 (v1); instance B refreshes: B's memo holds v1;
   *   <li>instance A publishes x=2.0.0 (v2) and writes the checkout's cache files (v2);
   *   <li>after A's run was acknowledged, B runs "set x to 1.0.0" (a rollback).
   * </ol>
   *
   * B's warm path starts from its own memo (v1, x=1.0.0), never from the cache files the checkout
   * wrote since; the put equals the memo, so the delta is empty: B returns NO_CHANGE without any
   * write or read of the lockfile, and the shared lockfile keeps x=2.0.0. The checkout's runs are serialised by its
   * lock, so B's run strictly follows A's: the rollback is silently lost. The memo is not coherent
   * across instances of one checkout.
   */
  @Test
  void aSecondInstanceOnTheSameCheckout_rollingANameBack_isNotSilentlyDropped() {
    TestCheckout a = checkout("c");
    TestCheckout b = checkout("c");
    a.transaction().run(tx -> tx.put(X, V1));
    b.transaction().refresh();
    a.transaction().run(tx -> tx.put(X, V2));
    counting.reset();

    Outcome rollback = Outcome.of(() -> b.transaction().run(tx -> tx.put(X, V1)));

    assertThat(rollback.conflictOn(X) || a.shared().entry(X).equals(Optional.of(V1)))
        .as("B's rollback of x ran after A's write on the same checkout: it must be published or reported;"
            + " got %s after %d calls, shared x=%s", rollback, counting.total(), a.shared().entry(X))
        .isTrue();
  }

  /**
   * Two instances on ONE checkout, the second under DEFER. A publishes x=2.0.0 (v2) after B's memo
   * saw v1 (x=1.0.0). B then sets x to 3.0.0; its warm write on v1 meets an unavailable store, so
   * B is told DEFERRED: "kept pending, the next transaction publishes it". The record's base is
   * B's stale memo (x=1.0.0), so the next run's replay finds x "changed by another checkout since"
   * (it was this checkout, strictly before) and drops x=3.0.0 with a warning only. Under LOCKED the
   * record's base would be v2 and x=3.0.0 would be published.
   */
  @Test
  void aDeferredChangeOfASecondInstance_isPublishedByTheNextRun_notDroppedForItsOwnCheckoutsEarlierWrite() {
    TestCheckout a = checkout("c");
    TestCheckout b = TestCheckout.builder(counting, dir.resolve("c"), clock).commitMode(CommitMode.OPTIMISTIC)
        .publishFailurePolicy(PublishFailurePolicy.DEFER).maxPublishAttempts(1).build();
    LockfileEntry v3 = LockfileEntry.builder("3.0.0", "2026-01-01T00:00:00.000Z").build();
    a.transaction().run(tx -> tx.put(X, V1));
    b.transaction().refresh();
    a.transaction().run(tx -> tx.put(X, V2));
    remote.faults().failNext(DatastoreOperation.WRITE, LOCKFILE::equals, 1, Fault.UNAVAILABLE);

    TransactionResult deferred = b.transaction().run(tx -> tx.put(X, v3));
    assertThat(deferred.status()).isEqualTo(TransactionStatus.DEFERRED);

    TransactionResult next = a.transaction().run(tx -> tx.put(Y, V1));

    assertThat(a.shared().entry(X))
        .as("B's deferred x=3.0.0 followed A's x=2.0.0 on the same checkout; next run's warnings: %s", next.warnings())
        .contains(v3);
  }

  /**
   * Two checkouts. C (optimistic) is warm at v1 (x=1.0.0). A peer publishes x=2.0.0 (v2). C's change
   * sets x to 1.0.0 and y to 1.0.0. Its delta against the stale view holds y only; the write on v1
   * is refused, rebased onto v2 (y applies), and published: C is told PUBLISHED, delta {y}, no
   * conflict; x stays 2.0.0. The change wrote x, a peer changed x since the version the change was
   * made on, and the caller is never told (a LOCKED run would have published x=1.0.0).
   */
  @Test
  void anOptimisticChangeWritingANameBackToItsStaleValue_isPublishedOrAConflict() {
    TestCheckout c = checkout("c");
    TestCheckout peer = checkout("peer");
    c.transaction().run(tx -> tx.put(X, V1));
    peer.transaction().refresh();
    peer.transaction().run(tx -> tx.put(X, V2));

    Outcome outcome = Outcome.of(() -> c.transaction().run(tx -> {
      tx.put(X, V1);
      tx.put(Y, V1);
    }));

    assertThat(c.shared().entry(Y)).contains(V1);
    assertThat(outcome.conflictOn(X) || c.shared().entry(X).equals(Optional.of(V1)))
        .as("the change wrote x and a peer changed x since: x must be published or a conflict; got %s, shared x=%s",
            outcome, c.shared().entry(X))
        .isTrue();
  }

  /**
   * The control: the same change on a LOCKED checkout publishes x=1.0.0 (it fetches first), so the
   * drop above is the optimistic warm path's alone. Passes.
   */
  @Test
  void control_theSameChangeLocked_publishesTheName() {
    TestCheckout c = TestCheckout.builder(counting, dir.resolve("locked"), clock).commitMode(CommitMode.LOCKED).build();
    TestCheckout peer = checkout("peer");
    c.transaction().run(tx -> tx.put(X, V1));
    peer.transaction().refresh();
    peer.transaction().run(tx -> tx.put(X, V2));

    TransactionResult result = c.transaction().run(tx -> {
      tx.put(X, V1);
      tx.put(Y, V1);
    });

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(c.shared().entry(X)).contains(V1);
  }

  private TestCheckout checkout(String name) {
    return TestCheckout.builder(counting, dir.resolve(name), clock).commitMode(CommitMode.OPTIMISTIC).build();
  }

  /** A run's result or failure. */
  record Outcome(TransactionResult result, RuntimeException failure) {
    static Outcome of(java.util.function.Supplier<TransactionResult> run) {
      try {
        return new Outcome(run.get(), null);
      } catch (RuntimeException e) {
        return new Outcome(null, e);
      }
    }

    boolean conflictOn(ExtensionName name) {
      return failure instanceof LockfileConflictException c && c.getMessage().contains(name.value());
    }

    @Override
    public String toString() {
      return failure != null ? "failure " + failure : result.status() + " delta=" + result.delta();
    }
  }
}
