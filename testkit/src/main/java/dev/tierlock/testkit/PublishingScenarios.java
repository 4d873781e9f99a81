package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.GLOBAL_LOCK_KEY;
import static dev.tierlock.testkit.TransactionFixture.LOCKFILE_KEY;
import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.groups.Tuple.tuple;

import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileEntry;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.PendingChange;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.DatastoreUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Publishing and rebase, for {@link LockfileTransactionContract}: a change is published once, on
 * top of whatever peers published meanwhile, never reverting them; a change that throws or
 * changes nothing writes nothing; retries stay within the deadline. Not thread-safe: one per test.
 */
final class PublishingScenarios {

  private final TransactionFixture f;

  PublishingScenarios(TransactionFixture fixture) {
    this.f = fixture;
  }

  void put_fromAStaleCache_keepsAPeersEntry() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@acme/web", "1.0.0");
    b.transaction().refresh();
    a.put("@acme/api", "1.0.0");
    assertThat(versions(b.local())).as("b's cache is stale").containsOnlyKeys("@acme/web");

    TransactionResult result = b.put("@acme/db", "2.0.0");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).containsExactly(entry("@acme/web", "1.0.0"), entry("@acme/api", "1.0.0"),
        entry("@acme/db", "2.0.0"));
    assertThat(versions(b.local())).isEqualTo(versions(f.shared()));
  }

  void remove_fromAStaleCache_keepsAPeersAddition() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@acme/web", "1.0.0");
    b.transaction().refresh();
    a.put("@acme/db", "2.0.0");
    assertThat(versions(b.local())).as("b's cache is stale").containsOnlyKeys("@acme/web");

    TransactionResult result = b.remove("@acme/web");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().removals()).containsExactly(name("@acme/web"));
    assertThat(versions(f.shared())).containsExactly(entry("@acme/db", "2.0.0"));
  }

  void aHolderPausedPastItsTtl_cannotOverwriteAPeersNewerVersion() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@s/base", "1");
    String held = f.sharedObject().orElseThrow().version().value();
    AtomicReference<String> peers = new AtomicReference<>();
    f.store().log().clear();
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      f.stallPastTheLease();
      assertThat(b.put("@s/peer", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
      peers.set(f.sharedObject().orElseThrow().version().value());
    });

    TransactionResult result = a.put("@s/paused", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(f.store().log().entries(DatastoreOperation.WRITE)).filteredOn(e -> e.target().equals(LOCKFILE_KEY.value()))
        .extracting(LoggedOperation::condition, LoggedOperation::outcome)
        .as("the peer's write, the paused holder's write on the version it held, then its rebased one")
        .containsExactly(tuple("mustMatch(" + held + ")", "WRITTEN"), tuple("mustMatch(" + held + ")", "PRECONDITION_FAILED"),
            tuple("mustMatch(" + peers.get() + ")", "WRITTEN"));
    assertThat(versions(f.shared())).containsExactly(entry("@s/base", "1"), entry("@s/peer", "1"),
        entry("@s/paused", "1"));
  }

  void aConflictingPeerChange_failsThatEntryNamingBothValues_andPublishesTheRest() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@s/x", "1");
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> b.put("@s/x", "3"));

    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.put(name("@s/x"), LockfileEntry.builder("2", "2026-01-01T00:00:00.000Z").build());
      tx.put(name("@s/y"), f.entry("1"));
    }))
        .isInstanceOf(LockfileConflictException.class)
        .hasMessageStartingWith("Cannot publish lockfile change to " + a.transaction().describe()
            + ": another checkout changed @s/x (this transaction: {\"pulledAt\":\"2026-01-01T00:00:00.000Z\",\"version\":\"2\"},"
            + " published by another checkout: {\"pulledAt\":")
        .hasMessageEndingWith("\"version\":\"3\"}) at the same time; their change is kept and this one is dropped for"
            + " that entry")
        .satisfies(e -> {
          LockfileConflictException conflict = (LockfileConflictException) e;
          assertThat(conflict.code()).isEqualTo("lockfile_conflict");
          assertThat(conflict.conflicts()).singleElement().satisfies(c -> {
            assertThat(c.name()).isEqualTo(name("@s/x"));
            assertThat(c.ours()).map(LockfileEntry::version).contains("2");
            assertThat(c.theirs()).map(LockfileEntry::version).contains("3");
          });
        });
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "3"), entry("@s/y", "1"));
    assertThat(versions(a.local())).isEqualTo(versions(f.shared()));
    assertThat(a.transaction().pending()).as("nothing of the conflicting entry stays pending").isEmpty();
  }

  void nestedRuns_acquireOnceAndPublishOnce() {
    TestCheckout a = f.checkout("a");

    TransactionResult result = a.transaction().run(tx -> {
      tx.put(name("@s/x"), f.entry("1"));
      tx.run(inner -> {
        inner.put(name("@s/y"), f.entry("1"));
        inner.run(deeper -> deeper.remove(name("@s/x")));
      });
    });

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().names()).containsExactly(name("@s/y"));
    assertThat(f.store().log().entries(DatastoreOperation.WRITE)).filteredOn(e -> e.target().equals(GLOBAL_LOCK_KEY.value())
        && e.condition().equals("mustNotExist")).as("global lock acquisitions").hasSize(1);
    assertThat(f.lockfileWrites()).isEqualTo(1);
    assertThat(versions(f.shared())).containsExactly(entry("@s/y", "1"));
  }

  void aNestedChangeThatThrows_isUndone_andTheOuterChangeIsPublished() {
    TestCheckout a = f.checkout("a");
    a.put("@s/kept", "1");

    TransactionResult result = a.transaction().run(tx -> {
      tx.put(name("@s/x"), f.entry("1"));
      assertThatThrownBy(() -> tx.run(inner -> {
        inner.put(name("@s/y"), f.entry("1"));
        inner.remove(name("@s/kept"));
        throw new IllegalStateException("the nested install failed");
      })).isInstanceOf(IllegalStateException.class).hasMessage("the nested install failed");
      assertThat(tx.entry(name("@s/y"))).as("undone").isEmpty();
      assertThat(tx.entry(name("@s/kept"))).as("undone").isPresent();
    });

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().names()).containsExactly(name("@s/x"));
    assertThat(versions(f.shared())).containsExactly(entry("@s/kept", "1"), entry("@s/x", "1"));
  }

  void aChangeThatThrows_publishesNothing_keepsNothing_andLeavesTheCache() {
    TestCheckout a = f.checkout("a");
    a.put("@s/before", "1");
    byte[] cached = TransactionFixture.bytesOf(a.cachePath());
    f.store().log().clear();

    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.put(name("@s/x"), f.entry("1"));
      tx.remove(name("@s/before"));
      throw new IllegalStateException("the install failed after its entry was set");
    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the install failed after its entry was set");
    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.put(name("@s/y"), f.entry("1"));
      throw new AssertionError("the change failed hard");
    }))
        .isInstanceOf(AssertionError.class)
        .hasMessage("the change failed hard");

    assertThat(f.lockfileWrites()).isZero();
    assertThat(versions(f.shared())).containsExactly(entry("@s/before", "1"));
    assertThat(a.transaction().pending()).isEmpty();
    assertThat(a.cachePath()).hasBinaryContent(cached);
    assertThat(a.transaction().run(tx -> { }).status()).as("nothing was kept to replay").isEqualTo(TransactionStatus.NO_CHANGE);
  }

  void aPutThatChangesNothing_writesNoLockfile() {
    TestCheckout a = f.checkout("a");
    LockfileEntry same = f.entry("1");
    a.transaction().run(tx -> tx.put(name("@s/x"), same));
    f.store().log().clear();

    TransactionResult again = a.transaction().run(tx -> tx.put(name("@s/x"), same));
    TransactionResult undone = a.transaction().run(tx -> {
      tx.put(name("@s/y"), f.entry("1"));
      tx.remove(name("@s/y"));
    });
    TransactionResult absent = a.remove("@s/never");

    assertThat(again.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(again.attempts()).isZero();
    assertThat(undone.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(absent.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(f.store().log().entries(DatastoreOperation.WRITE)).extracting(LoggedOperation::target)
        .as("only the global lock is written").containsOnly(GLOBAL_LOCK_KEY.value());
    assertThat(a.transaction().pending()).isEmpty();
  }

  void anUncontendedPut_costsFourRoundTrips() {
    TestCheckout a = f.checkout("a");
    a.put("@s/warm", "1");
    f.store().log().clear();

    a.put("@s/x", "1");

    assertThat(f.store().log().entries()).extracting(LoggedOperation::operation, LoggedOperation::target)
        .containsExactly(
            tuple(DatastoreOperation.WRITE, GLOBAL_LOCK_KEY.value()),
            tuple(f.warmFetch(), LOCKFILE_KEY.value()),
            tuple(DatastoreOperation.WRITE, LOCKFILE_KEY.value()),
            tuple(DatastoreOperation.DELETE, GLOBAL_LOCK_KEY.value()));
    if (f.warmFetch() == DatastoreOperation.READ) {
      assertThat(f.store().log().entries(DatastoreOperation.READ)).singleElement()
          .satisfies(e -> assertThat(e.condition()).startsWith("ifNoneMatch("));
    }
  }

  void aWriteThatTimedOutBeforeApplying_isPublishedAgain() {
    TestCheckout a = f.checkout("a");
    a.put("@s/base", "1");
    f.store().log().clear();
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.TIMEOUT_BEFORE_APPLY);

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(f.lockfileWrites()).isEqualTo(1);
    assertThat(versions(f.shared())).containsExactly(entry("@s/base", "1"), entry("@s/x", "1"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  void throttling_isAbsorbedWithinTheDeadline() {
    TestCheckout a = f.checkout("a");
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 4, Fault.THROTTLED);

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(5);
    assertThat(f.clock().sleeps()).hasSizeGreaterThanOrEqualTo(4)
        .allMatch(d -> d.compareTo(Duration.ofMillis(250)) >= 0, "each wait is long enough for a throttled store");
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"));
  }

  void aThrottlingBurstLongerThanTheDeadline_endsUnpublished_withTheChangePending() {
    TestCheckout a = f.register(f.builder("a").transactionDeadline(Duration.ofSeconds(20)).build());
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), TransactionFixture.BEYOND_ATTEMPTS,
        Fault.THROTTLED);
    Instant start = f.clock().instant();

    assertThatThrownBy(() -> a.put("@s/x", "1"))
        .isInstanceOf(ManagedConfigUnpublishedException.class)
        .hasMessageStartingWith("Cannot publish lockfile change to " + a.transaction().describe() + " (")
        .hasMessageContaining("throttled")
        .hasMessageEndingWith("; the change (set @s/x 1) is saved in " + a.transaction().pending().orElseThrow().record()
            + " and the next transaction on this checkout publishes it")
        .hasCauseInstanceOf(DatastoreUnavailableException.class)
        .extracting(e -> ((ManagedConfigUnpublishedException) e).code()).isEqualTo("managed_config_unpublished");
    assertThat(Duration.between(start, f.clock().instant())).isLessThanOrEqualTo(Duration.ofSeconds(20));
    assertThat(a.transaction().pending()).hasValueSatisfying(p -> assertThat(p.state())
        .isEqualTo(PendingChange.State.UNPUBLISHED));
    f.store().faults().clear();

    assertThat(a.transaction().run(tx -> { }).status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  void theDeferPolicy_returnsDeferred_andKeepsTheChangePending() {
    TestCheckout a = f.register(f.builder("a").publishFailurePolicy(PublishFailurePolicy.DEFER).build());
    f.failLockfileWrites();

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.DEFERRED);
    assertThat(result.delta().names()).containsExactly(name("@s/x"));
    assertThat(result.warnings()).anyMatch(w -> w.startsWith("Cannot publish lockfile change to "));
    assertThat(a.transaction().pending()).hasValueSatisfying(p -> {
      assertThat(p.state()).isEqualTo(PendingChange.State.UNPUBLISHED);
      assertThat(p.delta()).isEqualTo(result.delta());
    });
    assertThat(f.shared().isEmpty()).isTrue();
    f.store().faults().clear();

    assertThat(a.put("@s/y", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).containsOnly(entry("@s/x", "1"), entry("@s/y", "1"));
  }

  void aChangeThatUsesUpTheDeadline_isStillPublishedOnce() {
    TestCheckout a = f.checkout("a");

    TransactionResult result = a.transaction().run(tx -> {
      tx.put(name("@s/x"), f.entry("1"));
      f.clock().advance(Duration.ofSeconds(121));
    });

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(1);
    assertThat(f.lockfileWrites()).isEqualTo(1);
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"));
  }

  void aRefusedWriteAfterTheDeadline_endsUnpublished_andTheNextRunPublishesIt() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> b.put("@s/peer", "1"));

    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.put(name("@s/x"), f.entry("1"));
      f.clock().advance(Duration.ofSeconds(121));
    }))
        .isInstanceOf(ManagedConfigUnpublishedException.class)
        .hasMessage("Cannot publish lockfile change to " + a.transaction().describe() + " (1 attempt): the shared"
            + " lockfile changed before each attempt; the change (set @s/x 1) is saved in "
            + a.transaction().pending().orElseThrow().record() + " and the next transaction on this checkout publishes it"
            + " (also: The global " + a.tierlock().globalLock().describe() + " was lost during the transaction;"
            + " publishing stays safe: it is conditional on the version fetched)");
    assertThat(versions(f.shared())).containsExactly(entry("@s/peer", "1"));

    assertThat(a.transaction().run(tx -> { }).status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).containsExactly(entry("@s/peer", "1"), entry("@s/x", "1"));
  }
}
