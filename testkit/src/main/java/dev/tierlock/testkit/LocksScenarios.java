package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.GLOBAL_LOCK_KEY;
import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.DistributedLock;
import dev.tierlock.LockOptions;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.ManagedLockfileUnavailableException;
import dev.tierlock.TransactionContext;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ForwardingDatastore;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * Locks and reads, for {@link LockfileTransactionContract}: runs do not nest, locks are taken in
 * order and time out naming their holder, a failed lock or fetch changes nothing, reads need no
 * lock and write nothing, a context cannot be used outside its run or from another thread, every
 * configuration of checkout on one store shares one lock and one fenced write, nothing internal is
 * ever written, and a store that ignores preconditions is refused. Not thread-safe: one per test.
 */
final class LocksScenarios {

  private final TransactionFixture f;

  LocksScenarios(TransactionFixture fixture) {
    this.f = fixture;
  }

  void startingARunInsideARun_isRejected_andReleasesTheLocks() {
    TestCheckout a = f.checkout("a");
    String nested = "Cannot start a transaction on " + a.transaction().describe()
        + ": this thread is already running one there; join it with TransactionContext.run instead";

    for (ThrowingCallable inner : List.<ThrowingCallable>of(() -> a.put("@s/x", "1"), () -> a.transaction().refresh(),
        () -> a.transaction().reapplyPending())) {
      assertThatThrownBy(() -> a.transaction().run(tx -> {
        try {
          inner.call();
        } catch (RuntimeException e) {
          throw e;
        } catch (Throwable e) {
          throw new IllegalStateException(e);
        }
      }))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(nested);
    }

    assertThat(f.shared().isEmpty()).isTrue();
    assertThat(a.put("@s/x", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
  }

  void lockOrder_theGlobalLockInsideThePulledExtensionsLock_isRejected() {
    TestCheckout a = f.checkout("a");

    assertThatThrownBy(() -> a.transaction().run(tx -> tx.withPulledExtensionsLock(
        () -> a.tierlock().globalLock().acquire())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Cannot acquire ")
        .hasMessageEndingWith(": the GLOBAL lock is taken before the PULLED_EXTENSIONS lock, and this thread already"
            + " holds the PULLED_EXTENSIONS lock (lock order is GLOBAL and CHECKOUT, then PULLED_EXTENSIONS)");

    assertThat(a.put("@s/x", "1").status()).as("every lock was released").isEqualTo(TransactionStatus.PUBLISHED);
  }

  void pulledExtensionsSections_nestInsideOneRun_andAreReleasedAfterIt() {
    TestCheckout a = f.checkout("a");

    TransactionResult result = a.transaction().run(tx -> tx.withPulledExtensionsLock(() -> tx.withPulledExtensionsLock(
        () -> {
          tx.put(name("@s/x"), f.entry("1"));
          return "joined";
        })));

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    TestCheckout sameCheckout = f.register(f.builder("a").build());
    assertThat(sameCheckout.transaction().run(tx -> tx.withPulledExtensionsLock(() -> tx.entry(name("@s/x"))))
        .status()).as("another instance on the checkout takes it after the run").isEqualTo(TransactionStatus.NO_CHANGE);
  }

  void aLiveHolder_timesTheLockOut_namingIt() {
    LockOptions patient = LockOptions.DEFAULTS.withTtl(Duration.ofMinutes(10)).withMaxWait(Duration.ofSeconds(5));
    TestCheckout a = f.register(f.builder("a").lockOptions(patient).build());
    TestCheckout b = f.register(f.builder("b").lockOptions(patient).build());

    try (DistributedLock.Held held = b.tierlock().globalLock().acquire()) {
      assertThatThrownBy(() -> a.put("@s/x", "1"))
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageStartingWith("Cannot acquire lock ")
          .hasMessageContaining(GLOBAL_LOCK_KEY.value())
          .hasMessageContaining("test@b")
          .extracting(e -> ((LockTimeoutException) e).code()).isEqualTo("lock_timeout");
      assertThat(held.isHeld()).isTrue();
    }
    assertThat(f.shared().isEmpty()).isTrue();
    assertThat(a.transaction().pending()).isEmpty();
  }

  void anUnreachableStore_failsTheLockAsUnavailable_andChangesNothing() {
    TestCheckout a = f.checkout("a");
    f.store().faults().offline();

    assertThatThrownBy(() -> a.put("@s/x", "1"))
        .isInstanceOf(ManagedLockfileUnavailableException.class)
        .hasMessageStartingWith("Cannot acquire ")
        .hasMessageEndingWith("; no lockfile entry was changed")
        .hasCauseInstanceOf(DatastoreUnavailableException.class)
        .extracting(e -> ((ManagedLockfileUnavailableException) e).code()).isEqualTo("managed_lockfile_unavailable");

    f.store().faults().online();
    assertThat(f.shared().isEmpty()).isTrue();
    assertThat(a.transaction().pending()).isEmpty();
  }

  /**
   * Finding 2 of issue 8: checkouts of different configurations on one store (the store itself, and
   * a {@link dev.tierlock.spi.ForwardingDatastore} around it) share one global lock and one fenced
   * write path; interleaved, with stale caches and a stalled holder, they lose nothing.
   */
  void checkoutsOfDifferentConfigurationsOnOneStore_interleaved_loseNothing() {
    CountingDatastore counted = CountingDatastore.wrap(f.store());
    TestCheckout plain = f.checkout("plain");
    TestCheckout wrapped = f.register(f.builder("wrapped", counted).build());
    plain.put("@s/a", "1");
    wrapped.put("@s/b", "1");
    plain.put("@s/c", "1");
    wrapped.remove("@s/a");
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      f.stallPastTheLease();
      assertThat(wrapped.put("@s/d", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    });
    assertThat(plain.put("@s/e", "1").attempts()).as("the stalled write was refused, then rebased").isEqualTo(2);
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      f.stallPastTheLease();
      assertThat(plain.remove("@s/b").status()).isEqualTo(TransactionStatus.PUBLISHED);
    });
    assertThat(wrapped.put("@s/f", "1").attempts()).isEqualTo(2);

    assertThat(versions(f.shared())).containsOnly(entry("@s/c", "1"), entry("@s/d", "1"), entry("@s/e", "1"),
        entry("@s/f", "1"));
    assertThat(counted.count(DatastoreOperation.WRITE)).as("the wrapped checkout wrote through its wrapper").isPositive();
    LockOptions impatient = LockOptions.DEFAULTS.withMaxWait(Duration.ofSeconds(5));
    TestCheckout waiting = f.register(f.builder("waiting", counted).lockOptions(impatient).build());
    try (DistributedLock.Held held = plain.tierlock().globalLock().acquire()) {
      assertThatThrownBy(() -> waiting.put("@s/g", "1"))
          .as("one lock for every configuration")
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageContaining(GLOBAL_LOCK_KEY.value());
      assertThat(held.isHeld()).isTrue();
    }
  }
}
