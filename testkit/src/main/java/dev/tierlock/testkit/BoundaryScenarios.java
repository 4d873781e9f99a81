package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.GLOBAL_LOCK_KEY;
import static dev.tierlock.testkit.TransactionFixture.LOCKFILE_KEY;
import static dev.tierlock.testkit.TransactionFixture.SELF_CHECK_PREFIX;
import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.DistributedLock;
import dev.tierlock.Lockfile;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.ManagedLockfileUnavailableException;
import dev.tierlock.PendingChange;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionContext;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * What a run may read, write and touch, for {@link LockfileTransactionContract}: a failed fetch
 * changes nothing, reads need no lock and write nothing, a context cannot be used outside its run
 * or from another thread, nothing internal is ever written, and a store that ignores preconditions
 * is refused. Not thread-safe: one per test.
 */
final class BoundaryScenarios {

  private final TransactionFixture f;

  BoundaryScenarios(TransactionFixture fixture) {
    this.f = fixture;
  }


  void aFailedFetch_runsNoChange_andChangesNothing() {
    TestCheckout a = f.checkout("a");
    a.put("@s/x", "1");
    byte[] cached = TransactionFixture.bytesOf(a.cachePath());
    f.store().faults().failNext(f.warmFetch(), isLockfile(), 1, Fault.UNAVAILABLE);
    AtomicBoolean ran = new AtomicBoolean();

    assertThatThrownBy(() -> a.transaction().run(tx -> ran.set(true)))
        .isInstanceOf(ManagedLockfileUnavailableException.class)
        .hasMessageStartingWith("Cannot fetch the shared lockfile from " + a.transaction().describe() + ": ")
        .hasMessageEndingWith("; no lockfile entry was changed")
        .hasCauseInstanceOf(DatastoreUnavailableException.class)
        .extracting(e -> ((ManagedLockfileUnavailableException) e).code()).isEqualTo("managed_lockfile_unavailable");

    assertThat(ran).isFalse();
    assertThat(a.cachePath()).hasBinaryContent(cached);
    assertThat(a.transaction().pending()).isEmpty();
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"));
  }

  void refresh_isReadOnly_costsOneConditionalRead_andLeavesAPendingChangePending() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@s/x", "1");
    f.failLockfileWrites();
    assertThatThrownBy(() -> a.put("@s/y", "1")).isInstanceOf(ManagedConfigUnpublishedException.class);
    f.store().faults().clear();
    b.put("@s/z", "1");
    f.store().log().clear();

    TransactionResult refreshed = a.transaction().refresh();

    assertThat(refreshed.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(refreshed.delta().isEmpty()).isTrue();
    assertThat(versions(refreshed.lockfile())).as("the shared lockfile, without the pending change")
        .containsExactly(entry("@s/x", "1"), entry("@s/z", "1"));
    assertThat(refreshed.warnings()).containsExactly(
        "A change of this checkout is pending (unpublished: set @s/y 1); the next transaction settles it");
    assertThat(f.store().log().entries()).singleElement().satisfies(e -> {
      assertThat(e.operation()).isEqualTo(DatastoreOperation.READ);
      assertThat(e.target()).isEqualTo(LOCKFILE_KEY.value());
      assertThat(e.condition()).startsWith("ifNoneMatch(");
    });
    assertThat(versions(a.local())).as("the cache holds what was fetched").isEqualTo(versions(refreshed.lockfile()));
    assertThat(a.transaction().pending()).hasValueSatisfying(p -> assertThat(p.state())
        .isEqualTo(PendingChange.State.UNPUBLISHED));

    assertThat(a.transaction().run(tx -> { }).status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"), entry("@s/z", "1"), entry("@s/y", "1"));
  }

  /** Finding 5 of issue 8 (reads): a snapshot takes no lock, costs one read and writes nothing, not even the cache. */
  void snapshot_needsNoLock_costsOneRead_andWritesNothing_whileAnotherCheckoutHoldsTheGlobalLock() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@s/x", "1");
    TestCheckout fresh = f.checkout("fresh");
    try (DistributedLock.Held held = b.tierlock().globalLock().acquire()) {
      f.store().log().clear();

      Lockfile cold = fresh.tierlock().snapshot();
      Lockfile warm = a.tierlock().snapshot();

      assertThat(versions(cold)).containsExactly(entry("@s/x", "1"));
      assertThat(versions(warm)).containsExactly(entry("@s/x", "1"));
      assertThat(f.store().log().entries()).extracting(LoggedOperation::operation, LoggedOperation::target)
          .as("one read each, and nothing else").containsExactly(
              org.assertj.core.groups.Tuple.tuple(DatastoreOperation.READ, LOCKFILE_KEY.value()),
              org.assertj.core.groups.Tuple.tuple(DatastoreOperation.READ, LOCKFILE_KEY.value()));
      assertThat(f.store().log().entries()).extracting(LoggedOperation::condition)
          .satisfies(c -> assertThat(c.get(0)).isEqualTo("always"), c -> assertThat(c.get(1)).startsWith("ifNoneMatch("));
      assertThat(fresh.cachePath()).as("a snapshot writes no cache").doesNotExist();
      assertThat(fresh.tierlock().stateDirectory().resolve("lockfile-hydrated.json")).doesNotExist();
      assertThat(held.isHeld()).isTrue();
    }
  }

  /** Finding 5 of issue 8 (writes): nothing can be written outside a run, through a context that leaked from one. */
  void theContext_refusesEveryUseAfterItsChangeReturned() {
    TestCheckout a = f.checkout("a");
    AtomicReference<TransactionContext> leaked = new AtomicReference<>();
    a.transaction().run(leaked::set);
    TransactionContext tx = leaked.get();
    f.store().log().clear();
    String returned = ": the transaction's change has returned";

    assertThatThrownBy(() -> tx.put(name("@s/x"), f.entry("1"))).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot set entry @s/x" + returned);
    assertThatThrownBy(() -> tx.remove(name("@s/x"))).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot remove entry @s/x" + returned);
    assertThatThrownBy(() -> tx.entry(name("@s/x"))).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot read entry @s/x" + returned);
    assertThatThrownBy(tx::lockfile).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot read the lockfile" + returned);
    assertThatThrownBy(() -> tx.run(inner -> inner.put(name("@s/x"), f.entry("1")))).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot run a nested change" + returned);
    assertThatThrownBy(() -> tx.withPulledExtensionsLock(() -> "x")).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot take the pulled-extensions lock" + returned);

    assertThat(f.store().log().entries()).isEmpty();
    assertThat(a.transaction().run(t -> { }).status()).as("nothing was swept into the next run")
        .isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(f.shared().isEmpty()).isTrue();
  }

  /**
   * Finding 5 of issue 8 (threads): a context is confined to the thread that runs its change, and a
   * second thread's run on the same checkout waits and publishes only its own change.
   */
  void theContext_usedFromAnotherThreadDuringARun_isRefused_andNothingIsSweptIntoTheRun() throws InterruptedException {
    QueueWatch queue = new QueueWatch();
    TestCheckout a = f.register(f.builder("a").queueing(queue).build());
    AtomicReference<Throwable> intruder = new AtomicReference<>();
    AtomicReference<Object> secondRun = new AtomicReference<>();
    Thread second = new Thread(() -> {
      try {
        secondRun.set(a.put("@s/second", "1"));
      } catch (RuntimeException | Error e) {
        secondRun.set(e);
      }
    }, "second run");
    String owner = Thread.currentThread().getName();

    TransactionResult result = a.transaction().run(tx -> {
      tx.put(name("@s/own"), f.entry("1"));
      Thread thief = new Thread(() -> {
        try {
          tx.put(name("@s/intruder"), f.entry("1"));
        } catch (RuntimeException e) {
          intruder.set(e);
        }
      }, "intruder");
      thief.start();
      joinUninterruptibly(thief);
      second.start();
      awaitQueued(queue, second);
    });
    join(second);

    assertThat(intruder.get()).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot set entry @s/intruder from thread intruder: a transaction's context belongs to the thread"
            + " running its change (" + owner + ")");
    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().names()).containsExactly(name("@s/own"));
    assertThat(secondRun.get()).isInstanceOfSatisfying(TransactionResult.class, r -> {
      assertThat(r.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(r.delta().names()).containsExactly(name("@s/second"));
    });
    assertThat(versions(f.shared())).containsExactly(entry("@s/own", "1"), entry("@s/second", "1"));
  }


  /** Nothing internal travels: only the lockfile, the global lock and the self-check's objects are ever written. */
  void onlyTheLockfile_theGlobalLockAndTheSelfCheck_areEverWritten() throws IOException {
    TestCheckout a = f.register(f.builder("a").deferSelfCheck().build());
    TestCheckout b = f.register(f.builder("b").deferSelfCheck().build());
    for (TestCheckout checkout : List.of(a, b)) {
      Path config = checkout.cachePath().getParent();
      Files.createDirectories(config);
      for (String internal : List.of(".lock", "upstream_extensions.json.lock", ".upstream_extensions.json.1234.tmp")) {
        Files.writeString(config.resolve(internal), "internal");
      }
    }
    a.put("@s/x", "1");
    b.put("@s/y", "1");
    a.remove("@s/y");
    f.failLockfileWrites();
    assertThatThrownBy(() -> b.put("@s/z", "1")).isInstanceOf(ManagedConfigUnpublishedException.class);
    f.store().faults().clear();
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.LOSE_RESPONSE);
    b.transaction().run(tx -> { });
    b.transaction().refresh();

    assertThat(f.store().log().writtenKeys()).isNotEmpty().allSatisfy(key -> assertThat(
        key.equals(GLOBAL_LOCK_KEY) || key.equals(LOCKFILE_KEY) || key.value().startsWith(SELF_CHECK_PREFIX))
        .as("written key %s", key).isTrue());
    assertThat(f.store().log().writtenKeys()).filteredOn(k -> k.value().startsWith(SELF_CHECK_PREFIX))
        .as("the self-check ran in this test").isNotEmpty();
    assertThat(f.store().log().entries(DatastoreOperation.DELETE)).extracting(LoggedOperation::target)
        .allSatisfy(k -> assertThat(k.equals(GLOBAL_LOCK_KEY.value()) || k.startsWith(SELF_CHECK_PREFIX)).isTrue());
    assertThat(TierPath.isInternal(TierPath.LOCKFILE.value())).isFalse();
    assertThat(f.storedKeys()).containsExactly(SELF_CHECK_PREFIX + "verdict", LOCKFILE_KEY.value());
    assertThat(versions(f.shared())).containsOnly(entry("@s/x", "1"), entry("@s/z", "1"));
  }

  /** Finding 3 of issue 8, as a run sees it: a store that ignores preconditions is refused with its own exception. */
  void aStoreThatIgnoresPreconditions_isRefusedByRunAsUnsafe_beforeAnyWrite() {
    Datastore broken = ignoringPreconditions(f.store());
    TestCheckout a = f.register(f.builder("a", broken).deferSelfCheck().build());

    for (ThrowingCallable run : List.<ThrowingCallable>of(() -> a.put("@s/x", "1"), () -> a.transaction().run(tx -> { }))) {
      assertThatThrownBy(run)
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageStartingWith("Cannot write to datastore " + f.store().identity() + ": it does not honour write"
              + " preconditions (a create-only write over an existing object succeeded, probe key " + SELF_CHECK_PREFIX
              + "probe-")
          .hasMessageEndingWith("); Tierlock refuses to write to it")
          .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");
    }

    assertThat(f.store().log().writtenKeys()).allSatisfy(k -> assertThat(k.value()).startsWith(SELF_CHECK_PREFIX));
    assertThat(f.storedKeys()).as("the probes are cleaned up; no lock, no lockfile").isEmpty();
    assertThat(a.tierlock().snapshot().isEmpty()).as("reads still work").isTrue();
    assertThat(a.transaction().pending()).isEmpty();
  }

  /** Returns {@code store} with every write and delete precondition dropped, as some S3-compatible stores do. */
  static Datastore ignoringPreconditions(Datastore store) {
    return new ForwardingDatastore() {
      @Override
      protected Datastore delegate() {
        return store;
      }

      @Override
      public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
        return store.write(key, body, WriteCondition.none(), metadata);
      }

      @Override
      public DeleteResult delete(ObjectKey key, WriteCondition condition) {
        return store.delete(key, WriteCondition.none());
      }

      @Override
      public void close() {
        // the store under test is the fixture's to close
      }
    };
  }

  private static void joinUninterruptibly(Thread thread) {
    try {
      join(thread);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot wait for " + thread.getName() + ": interrupted", e);
    }
  }

  private static void join(Thread thread) throws InterruptedException {
    thread.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(thread.isAlive()).as("%s ended within 30 s", thread.getName()).isFalse();
  }

  /** Waits, at most 30 s, until {@code thread}'s run has queued behind the run in progress. */
  private static void awaitQueued(QueueWatch queue, Thread thread) {
    try {
      queue.await(thread);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot wait for " + thread.getName() + " to queue: interrupted", e);
    }
  }
}
