package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockOrderException;
import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileEntry;
import dev.tierlock.NestedTransactionException;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The lockfile-transaction contract without injected faults: stale caches, nesting, lock order,
 * read-only refresh, failing and interrupted changes, conflicting peers, and pending records or
 * caches that cannot be trusted (unreadable, without a base, corrupt).
 */
abstract class LockfileTransactionBasicsContract extends LockfileTransactionContractSupport {

  @Test
  final void pull_fromAStaleCache_keepsAPeersEntry() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    b.transaction().refresh();
    a.put("@acme/web", "1.0.0");
    assertThat(b.local().isEmpty()).as("b's cache is stale").isTrue();

    TransactionResult result = b.put("@acme/db", "2.0.0");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(shared())).containsExactly(entry("@acme/web", "1.0.0"), entry("@acme/db", "2.0.0"));
    assertThat(versions(b.local())).isEqualTo(versions(shared()));
  }

  @Test
  final void rm_fromAStaleCache_doesNotRevertAPeersAddition() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    a.put("@acme/web", "1.0.0");
    b.transaction().refresh();
    a.put("@acme/db", "2.0.0");
    assertThat(versions(b.local())).containsOnlyKeys("@acme/web");

    b.remove("@acme/web");

    assertThat(versions(shared())).containsExactly(entry("@acme/db", "2.0.0"));
  }

  @Test
  final void nestedRuns_acquireOnceAndPublishOnce() {
    TestCheckout a = checkout("a");

    TransactionResult result = a.transaction().run(tx -> {
      tx.repository().writeEntry(name("@s/x"), entryOf("1"));
      tx.run(inner -> {
        inner.repository().writeEntry(name("@s/y"), entryOf("1"));
        inner.run(deeper -> deeper.repository().removeEntry(name("@s/x")));
      });
    });

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().names()).containsExactly(name("@s/y"));
    assertThat(store().log().entries()).filteredOn(e -> e.operation() == DatastoreOperation.WRITE
        && e.target().equals(globalLockKey().value()) && e.condition().equals("mustNotExist")).hasSize(1);
    assertThat(lockfileWrites()).isEqualTo(1);
    assertThat(versions(shared())).containsExactly(entry("@s/y", "1"));
  }

  @Test
  final void startingARunInsideARun_isRejectedAndReleasesTheLock() {
    TestCheckout a = checkout("a");

    assertThatThrownBy(() -> a.transaction().run(tx -> a.put("@s/x", "1")))
        .isInstanceOf(NestedTransactionException.class)
        .hasMessageStartingWith("Cannot start a transaction on ")
        .hasMessageContaining("join it with TransactionContext.run")
        .extracting(e -> ((NestedTransactionException) e).code()).isEqualTo("nested_transaction");
    assertThat(shared().isEmpty()).isTrue();
    assertThat(a.put("@s/x", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
  }

  @Test
  final void lockOrder_theGlobalLockInsideThePulledExtensionsLock_isRejected() {
    TestCheckout a = checkout("a");

    assertThatThrownBy(() -> a.transaction().run(tx -> tx.withPulledExtensionsLock(
        section -> a.tierlock().globalLock().acquire())))
        .isInstanceOf(LockOrderException.class)
        .hasMessageContaining("the GLOBAL lock is taken before the PULLED_EXTENSIONS lock")
        .extracting(e -> ((LockOrderException) e).code()).isEqualTo("lock_order");
    assertThat(a.put("@s/x", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
  }

  @Test
  final void pulledExtensionsSections_nestInsideOneRun() {
    TestCheckout a = checkout("a");

    TransactionResult result = a.transaction().run(tx -> tx.withPulledExtensionsLock(outer -> tx.withPulledExtensionsLock(
        inner -> {
          assertThat(inner.isOpen()).isTrue();
          return tx.repository().writeEntry(name("@s/x"), entryOf("1"));
        })));

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(a.tierlock().pulledExtensionsLock().tryAcquire()).hasValueSatisfying(s -> s.close());
  }

  @Test
  final void refresh_fetchesWithoutRecordingOrPublishing() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    a.put("@s/x", "1");
    store().log().clear();

    TransactionResult result = b.transaction().refresh();

    assertThat(result.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(versions(b.tierlock().repository().snapshot())).containsExactly(entry("@s/x", "1"));
    assertThat(lockfileWrites()).isZero();
    assertThat(b.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void unchangedLockfile_isNoChangeAndPublishesNothing() {
    TestCheckout a = checkout("a");
    LockfileEntry same = entryOf("1");
    a.transaction().run(tx -> tx.repository().writeEntry(name("@s/x"), same));
    store().log().clear();

    TransactionResult result = a.transaction().run(tx -> tx.repository().writeEntry(name("@s/x"), same));

    assertThat(result.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(result.attempts()).isZero();
    assertThat(lockfileWrites()).isZero();
  }

  @Test
  final void aChangeThatThrows_stillPublishesWhatLandedThenRethrows() {
    TestCheckout a = checkout("a");

    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.repository().writeEntry(name("@s/x"), entryOf("1"));
      throw new IllegalStateException("install failed after its entry landed");
    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("install failed after its entry landed");
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"));
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void anInterruptedChange_isRecoveredByTheNextTransaction() {
    TestCheckout a = checkout("a");

    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.repository().writeEntry(name("@s/x"), entryOf("1"));
      throw new AssertionError("the process died here");
    }))
        .isInstanceOf(AssertionError.class)
        .hasMessage("the process died here");
    assertThat(a.tierlock().pendingChanges().read())
        .isInstanceOfSatisfying(PendingChange.Recorded.class, r -> assertThat(r.isIncomplete()).isTrue());
    assertThat(shared().isEmpty()).isTrue();

    TransactionResult result = a.transaction().refresh();

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"));
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void aConflictingPeerChange_failsTheRunNamingBothValues_andKeepsTheirs() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    a.put("@s/x", "1");
    store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> b.put("@s/x", "3"));

    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.repository().writeEntry(name("@s/x"), LockfileEntry.builder("2", "2026-01-01T00:00:00.000Z").build());
      tx.repository().writeEntry(name("@s/y"), entryOf("1"));
    }))
        .isInstanceOf(LockfileConflictException.class)
        .hasMessageStartingWith("Cannot publish lockfile change to ")
        .hasMessageContaining("another checkout changed @s/x (this transaction: {\"pulledAt\":\"2026-01-01T00:00:00.000Z\",\"version\":\"2\"}")
        .hasMessageContaining("\"version\":\"3\"")
        .satisfies(e -> {
          LockfileConflictException conflict = (LockfileConflictException) e;
          assertThat(conflict.code()).isEqualTo("lockfile_conflict");
          assertThat(conflict.conflicts()).singleElement().satisfies(c -> {
            assertThat(c.name()).isEqualTo(name("@s/x"));
            assertThat(c.theirs()).map(LockfileEntry::version).contains("3");
            assertThat(c.ours()).map(LockfileEntry::version).contains("2");
          });
        });
    assertThat(versions(shared())).containsExactly(entry("@s/x", "3"), entry("@s/y", "1"));
    assertThat(versions(a.local())).isEqualTo(versions(shared()));
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void theContext_refusesUseAfterTheChangeReturned() {
    TestCheckout a = checkout("a");
    AtomicReference<dev.tierlock.TransactionContext> leaked = new AtomicReference<>();
    a.transaction().run(leaked::set);

    assertThatThrownBy(() -> leaked.get().run(tx -> { }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot run a nested change: the transaction's change has returned");
  }

  @Test
  final void anUnreadablePendingRecord_recoversTheLocalChangeSinceTheLastFetch() throws IOException {
    TestCheckout a = checkout("a");
    a.put("@s/x", "1");
    a.overwriteLocal(a.local().with(name("@s/lost"), entryOf("9")));
    Files.writeString(a.tierlock().pendingChanges().path(), "2026-01-01T00:00:00.000Z");

    TransactionResult result = a.transaction().refresh();

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.warnings()).anyMatch(w -> w.startsWith("Cannot read the pending-change record ")
        && w.endsWith("; recovering the local change since the last fetch"));
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"), entry("@s/lost", "9"));
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void anUnreadablePendingRecord_neverResurrectsWhatAPeerRemoved() throws IOException {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    a.put("@s/x", "1");
    b.remove("@s/x");
    Files.writeString(a.tierlock().pendingChanges().path(), "2026-01-01T00:00:00.000Z");

    TransactionResult result = a.transaction().refresh();

    assertThat(result.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(result.warnings()).singleElement().asString().startsWith("Cannot read the pending-change record ");
    assertThat(shared().contains(name("@s/x"))).as("b's acknowledged removal").isFalse();
    assertThat(a.local().contains(name("@s/x"))).isFalse();
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void aPendingRecordWithoutABase_neverRevertsAPeersNewerValue() throws IOException {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    a.put("@s/x", "1");
    b.put("@s/x", "2");
    Files.writeString(a.tierlock().pendingChanges().path(), "{\"version\":1,\"upserts\":{\"@s/x\":{\"version\":\"1\","
        + "\"pulledAt\":\"2026-01-01T00:00:00.000Z\"},\"@s/y\":{\"version\":\"1\",\"pulledAt\":\"2026-01-01T00:00:00.000Z\"}},"
        + "\"removals\":[]}\n");

    TransactionResult result = a.transaction().refresh();

    assertThat(result.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(result.warnings()).hasSize(2).allSatisfy(w -> assertThat(w)
        .startsWith("Dropped the unpublished change to @s/")
        .endsWith("the pending record does not say what it was made on (an older tool's record), so it could revert"
            + " another checkout's change"));
    assertThat(versions(shared())).containsExactly(entry("@s/x", "2"));
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void aCorruptCache_isReplacedByTheNextFetch() throws IOException {
    TestCheckout a = checkout("a");
    a.put("@s/x", "1");
    Path cache = a.tierlock().syncPort().lockfilePath();
    a.close();
    Files.writeString(cache, "{ not json");
    TestCheckout again = checkout("a");
    assertThat(again.tierlock().repository().snapshot().isEmpty()).as("an undecodable cache reads as absent").isTrue();

    TransactionResult result = again.transaction().refresh();

    assertThat(result.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(versions(again.local())).containsExactly(entry("@s/x", "1"));
    assertThat(again.put("@s/y", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"), entry("@s/y", "1"));
  }
}
