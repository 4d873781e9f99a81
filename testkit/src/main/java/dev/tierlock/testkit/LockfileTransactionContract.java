package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.LockOptions;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.LockfileDelta;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.ManagedLockfileUnavailableException;
import dev.tierlock.PendingChange;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The contract every datastore passes under {@link dev.tierlock.LockfileTransaction}: several
 * checkouts on one fresh store, with faults injected by a {@link FaultyDatastore} around it, never
 * lose an acknowledged change. A datastore module subclasses it in a few lines:
 *
 * <pre>{@code
 * class S3LockfileTransactionTest extends LockfileTransactionContract {
 *   @Override protected Datastore createDatastore() { return S3Datastore.of(client, freshBucket()); }
 * }
 * }</pre>
 *
 * <p>Every test method is final. Covered here: a failed publish kept pending and replayed onto a
 * fresh fetch (a replayed removal survives; two failed publishes keep both changes); a lock holder
 * paused past its ttl; a lost
 * response after a successful publish, with and without a working read-back; a write that timed
 * out before it applied; throttling absorbed within the deadline, and a burst past it; the defer
 * policy; a failed fetch or lock that changes nothing; a lock timeout; a stale replayed change
 * dropped with a warning; that only tier paths, the lock and self-check probes are ever written.
 * Archives with the lockfile (archive first, deletions after the publish, a failed publish keeping
 * the archive) are the archive store contract's ({@link ArchiveStoreContract}). Inherited: stale
 * caches, nesting, lock order, refresh, failing and interrupted changes, conflicting peers,
 * pending records and caches that cannot be trusted ({@link LockfileTransactionBasicsContract});
 * lost responses with stalled holders, crashes before and after a write lands, two runs on one
 * checkout, a change that uses up the deadline ({@link LockfileTransactionRecoveryContract}). Not
 * thread-safe (JUnit runs one test per instance).
 */
public abstract class LockfileTransactionContract extends LockfileTransactionRecoveryContract {

  /** More failures than a run makes attempts, so that the publish gives up. */
  private static final int BEYOND_ATTEMPTS = 50;

  /** For subclasses. */
  protected LockfileTransactionContract() {}

  /**
   * Returns a fresh, empty datastore (a new bucket, prefix or directory); called before each test
   * and closed after it. The contract wraps it in a {@link FaultyDatastore}.
   *
   * @throws Exception if the store cannot be created (the test then fails)
   */
  @Override
  protected abstract Datastore createDatastore() throws Exception;

  private void failLockfileWrites() {
    store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), BEYOND_ATTEMPTS, Fault.UNAVAILABLE);
  }

  @Test
  final void aFailedPublish_keepsTheChangePending_andTheNextRunReplaysItOntoAFreshFetch() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    b.put("@s/web", "1");
    failLockfileWrites();

    assertThatThrownBy(() -> a.put("@s/db", "2"))
        .isInstanceOf(ManagedConfigUnpublishedException.class)
        .hasMessageStartingWith("Cannot publish lockfile change to ")
        .hasMessageContaining("set @s/db 2")
        .hasMessageContaining("is saved locally in " + a.tierlock().pendingChanges().path())
        .hasCauseInstanceOf(DatastoreUnavailableException.class)
        .extracting(e -> ((ManagedConfigUnpublishedException) e).code()).isEqualTo("managed_config_unpublished");
    assertThat(a.tierlock().pendingChanges().read()).isInstanceOfSatisfying(PendingChange.Recorded.class,
        r -> assertThat(r.delta().names()).containsExactly(name("@s/db")));
    assertThat(versions(shared())).containsExactly(entry("@s/web", "1"));
    store().faults().clear();
    b.put("@s/api", "3");

    a.put("@s/ui", "4");

    assertThat(versions(shared())).containsOnly(entry("@s/web", "1"), entry("@s/db", "2"), entry("@s/api", "3"),
        entry("@s/ui", "4"));
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void aReplayedRemoval_survives() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    b.put("@s/x", "1");
    failLockfileWrites();
    assertThatThrownBy(() -> a.remove("@s/x")).isInstanceOf(ManagedConfigUnpublishedException.class);
    store().faults().clear();
    b.put("@s/y", "1");

    TransactionResult result = a.transaction().refresh();

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().removals()).containsExactly(name("@s/x"));
    assertThat(versions(shared())).containsExactly(entry("@s/y", "1"));
  }

  @Test
  final void twoFailedPublishes_keepBothChanges() {
    TestCheckout a = checkout("a");
    failLockfileWrites();
    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(ManagedConfigUnpublishedException.class);
    failLockfileWrites();
    assertThatThrownBy(() -> a.put("@s/y", "1")).isInstanceOf(ManagedConfigUnpublishedException.class);
    assertThat(a.tierlock().pendingChanges().read()).isInstanceOfSatisfying(PendingChange.Recorded.class,
        r -> assertThat(r.delta().names()).containsExactlyInAnyOrder(name("@s/x"), name("@s/y")));
    store().faults().clear();

    assertThat(a.transaction().refresh().status()).isEqualTo(TransactionStatus.PUBLISHED);

    assertThat(versions(shared())).containsOnly(entry("@s/x", "1"), entry("@s/y", "1"));
  }

  @Test
  final void aHolderPausedPastItsTtl_cannotOverwriteAPeersNewerLockfile() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      clock().advance(LockOptions.DEFAULTS.ttl().plusSeconds(1));
      b.put("@s/peer", "1");
    });

    TransactionResult result = a.put("@s/paused", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(store().log().entries()).anyMatch(e -> e.target().equals(lockfileKey().value())
        && e.outcome().equals("PRECONDITION_FAILED"));
    assertThat(versions(shared())).containsOnly(entry("@s/peer", "1"), entry("@s/paused", "1"));
  }

  @Test
  final void aLostResponseAfterASuccessfulPublish_resolvesToSuccess() {
    TestCheckout a = checkout("a");
    store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.LOSE_RESPONSE);

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(1);
    assertThat(store().log().entries(DatastoreOperation.WRITE)).filteredOn(e -> e.target().equals(lockfileKey().value()))
        .hasSize(1);
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"));
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void aLostResponseWithAFailedReadBack_isResolvedByFetchingAgain() {
    TestCheckout a = checkout("a");
    store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.LOSE_RESPONSE)
        .failNext(DatastoreOperation.STAT, isLockfile(), 1, Fault.UNAVAILABLE);

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(store().log().entries(DatastoreOperation.WRITE)).filteredOn(e -> e.target().equals(lockfileKey().value()))
        .hasSize(1);
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"));
  }

  @Test
  final void anUncontendedPut_costsFourRoundTrips_andANoOpRefreshOne() {
    TestCheckout a = checkout("a");
    a.put("@s/warm", "1");
    store().log().clear();

    a.put("@s/x", "1");

    assertThat(store().log().entries()).extracting(LoggedOperation::operation, LoggedOperation::target)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(DatastoreOperation.WRITE, globalLockKey().value()),
            org.assertj.core.groups.Tuple.tuple(DatastoreOperation.READ, lockfileKey().value()),
            org.assertj.core.groups.Tuple.tuple(DatastoreOperation.WRITE, lockfileKey().value()),
            org.assertj.core.groups.Tuple.tuple(DatastoreOperation.DELETE, globalLockKey().value()));
    store().log().clear();

    assertThat(a.transaction().refresh().status()).isEqualTo(TransactionStatus.NO_CHANGE);

    assertThat(store().log().entries()).singleElement().satisfies(e -> {
      assertThat(e.operation()).isEqualTo(DatastoreOperation.READ);
      assertThat(e.condition()).startsWith("ifNoneMatch(");
    });
  }

  @Test
  final void aWriteThatTimedOutBeforeApplying_isPublishedAgain() {
    TestCheckout a = checkout("a");
    store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.TIMEOUT_BEFORE_APPLY);

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(lockfileWrites()).isEqualTo(1);
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"));
  }

  @Test
  final void throttling_isAbsorbedWithinTheDeadline() {
    TestCheckout a = checkout("a");
    store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 4, Fault.THROTTLED);

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(5);
    assertThat(clock().sleeps()).hasSizeGreaterThanOrEqualTo(4)
        .allMatch(d -> d.compareTo(Duration.ofMillis(250)) >= 0, "each wait is long enough for a throttled store");
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"));
  }

  @Test
  final void aThrottlingBurstLongerThanTheDeadline_endsInAClearErrorWithTheChangePending() {
    TestCheckout a = register(checkoutBuilder("a").transactionDeadline(Duration.ofSeconds(20)).build());
    store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), BEYOND_ATTEMPTS, Fault.THROTTLED);
    java.time.Instant start = clock().instant();

    assertThatThrownBy(() -> a.put("@s/x", "1"))
        .isInstanceOf(ManagedConfigUnpublishedException.class)
        .hasMessageStartingWith("Cannot publish lockfile change to ")
        .hasMessageContaining("set @s/x 1")
        .hasMessageContaining("is saved locally")
        .hasCauseInstanceOf(DatastoreUnavailableException.class)
        .extracting(e -> ((ManagedConfigUnpublishedException) e).code()).isEqualTo("managed_config_unpublished");
    assertThat(Duration.between(start, clock().instant())).isLessThanOrEqualTo(Duration.ofSeconds(20));
    assertThat(a.tierlock().pendingChanges().read()).isInstanceOf(PendingChange.Recorded.class);
    store().faults().clear();
    assertThat(a.transaction().refresh().status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"));
  }

  @Test
  final void theDeferPolicy_returnsDeferredAndKeepsTheChangePending() {
    TestCheckout a = register(checkoutBuilder("a").publishFailurePolicy(PublishFailurePolicy.DEFER).build());
    failLockfileWrites();

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.DEFERRED);
    assertThat(result.delta()).isEqualTo(LockfileDelta.upsert(name("@s/x"), a.local().entry(name("@s/x")).orElseThrow()));
    assertThat(result.warnings()).anyMatch(w -> w.startsWith("Cannot publish lockfile change to "));
    assertThat(a.tierlock().pendingChanges().read()).isInstanceOf(PendingChange.Recorded.class);
    assertThat(shared().isEmpty()).isTrue();
  }

  @Test
  final void aFailedFetch_changesNothing() {
    TestCheckout a = checkout("a");
    a.put("@s/x", "1");
    store().faults().failNext(DatastoreOperation.READ, isLockfile(), 1, Fault.UNAVAILABLE);
    AtomicBoolean ran = new AtomicBoolean();

    assertThatThrownBy(() -> a.transaction().run(tx -> ran.set(true)))
        .isInstanceOf(ManagedLockfileUnavailableException.class)
        .hasMessageStartingWith("Cannot fetch the shared lockfile from ")
        .hasMessageEndingWith("; no lockfile entry was changed")
        .hasCauseInstanceOf(DatastoreUnavailableException.class)
        .extracting(e -> ((ManagedLockfileUnavailableException) e).code()).isEqualTo("managed_lockfile_unavailable");
    assertThat(ran).isFalse();
    assertThat(versions(a.local())).containsExactly(entry("@s/x", "1"));
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void anUnreachableStore_failsTheLockAsUnavailable() {
    TestCheckout a = checkout("a");
    store().faults().offline();

    assertThatThrownBy(() -> a.put("@s/x", "1"))
        .isInstanceOf(ManagedLockfileUnavailableException.class)
        .hasMessageStartingWith("Cannot acquire lock ")
        .hasCauseInstanceOf(DatastoreUnavailableException.class)
        .extracting(e -> ((ManagedLockfileUnavailableException) e).code()).isEqualTo("managed_lockfile_unavailable");
    store().faults().online();
    assertThat(shared().isEmpty()).isTrue();
  }

  @Test
  final void aLiveHolder_timesTheLockOut() {
    LockOptions patient = LockOptions.DEFAULTS.withTtl(Duration.ofMinutes(10)).withMaxWait(Duration.ofSeconds(5));
    TestCheckout a = register(checkoutBuilder("a").lockOptions(patient).build());
    TestCheckout b = register(checkoutBuilder("b").lockOptions(patient).build());

    try (dev.tierlock.LockLease held = b.tierlock().globalLock().acquire()) {
      assertThatThrownBy(() -> a.put("@s/x", "1"))
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageContaining(globalLockKey().value())
          .extracting(e -> ((LockTimeoutException) e).code()).isEqualTo("lock_timeout");
      assertThat(held.isHeld()).isTrue();
    }
    assertThat(shared().isEmpty()).isTrue();
  }

  @Test
  final void aStaleReplayedChange_isDroppedWithAWarning() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    b.put("@s/x", "1");
    failLockfileWrites();
    assertThatThrownBy(() -> a.put("@s/x", "2")).isInstanceOf(ManagedConfigUnpublishedException.class);
    store().faults().clear();
    b.put("@s/x", "3");

    TransactionResult result = a.transaction().refresh();

    assertThat(result.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(result.warnings()).singleElement().asString()
        .startsWith("Dropped the unpublished change to @s/x (this transaction: ")
        .endsWith("another checkout changed it since");
    assertThat(versions(shared())).containsExactly(entry("@s/x", "3"));
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }
  @Test
  final void onlyTierPaths_theLockAndSelfCheckProbes_areEverWritten() throws IOException {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    Path cachedConfig = a.tierlock().syncPort().lockfilePath().getParent();
    Files.createDirectories(cachedConfig);
    for (String internal : List.of(".lock", "upstream_extensions.json.lock", ".upstream_extensions.json.1234.tmp")) {
      Files.writeString(cachedConfig.resolve(internal), "internal");
    }
    a.put("@s/x", "1");
    b.put("@s/y", "1");
    a.remove("@s/y");
    failLockfileWrites();
    assertThatThrownBy(() -> b.put("@s/z", "1")).isInstanceOf(ManagedConfigUnpublishedException.class);
    store().faults().clear();
    b.transaction().refresh();

    assertThat(store().log().writtenKeys()).isNotEmpty().allSatisfy(key -> assertThat(
        key.equals(globalLockKey()) || key.value().startsWith(".tierlock-selfcheck/")
            || (key.value().startsWith(NAMESPACE.name().orElseThrow() + "/config/") && !TierPath.isInternal(key.value())))
        .as("written key %s", key).isTrue());
    assertThat(store().delegate().list("")).extracting(o -> o.key().value()).containsExactly(lockfileKey().value());
    assertThat(versions(shared())).containsOnly(entry("@s/x", "1"), entry("@s/z", "1"));
  }
}
