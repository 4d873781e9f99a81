package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.CommitMode;
import dev.tierlock.DistributedLock;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockOptions;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.Namespace;
import dev.tierlock.PendingChange;
import dev.tierlock.TierPath;
import dev.tierlock.TierlockException;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.TestCheckout;
import dev.tierlock.testkit.TestClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key lock that another process keeps (alive, or stopped with {@code SIGSTOP} while it holds
 * the lock) is a busy store, not an outage: the writer's lock wait ends in {@link
 * DatastoreBusyException} naming the holder, Tierlock retries it within the transaction's
 * deadline, then reports the change unpublished (the CLI's exit 75) with that cause, keeps it
 * pending, and publishes it once the holder is gone. Every wait runs on the test clock.
 */
class FileSystemBusyKeyLockTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final Duration LOCK_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  @ParameterizedTest(name = "holder {0}")
  @ValueSource(strings = {"stopped", "running"})
  void put_whileAnotherProcessHoldsTheLockfilesKeyLock_isUnpublishedWithinItsDeadline_namingTheHolder(String holder)
      throws Exception {
    TestClock clock = TestClock.create();
    Path root = dir.resolve("tier");
    FileSystemDatastore store = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults()
        .withLockTimeout(LOCK_TIMEOUT).withClock(clock).withSleeper(clock.sleeper()));
    try (TestCheckout a = TestCheckout.builder(store, dir.resolve("a"), clock).transactionDeadline(DEADLINE).build()) {
      a.put("@acme/web", "1.0.0");

      try (ChildJvm child = ChildJvm.start("hold", root.toString(), LOCKFILE.value())) {
        assertThat(child.nextLine()).isEqualTo("locked");
        boolean stop = holder.equals("stopped");
        if (stop) {
          signal("STOP", child.pid());
        }
        try {
          String heldBy = "its lock stayed held by pid " + child.pid() + " on host " + LockIdentity.current().hostname()
              + " since ";
          String started = "; started " + ProcessHandle.of(child.pid()).orElseThrow().info().startInstant().orElseThrow();
          Instant start = clock.instant();

          assertThatThrownBy(() -> a.put("@acme/db", "2.0.0"))
              .isExactlyInstanceOf(ManagedConfigUnpublishedException.class)
              .hasMessageStartingWith("Cannot publish lockfile change to " + store.describe() + " " + LOCKFILE + " (")
              .hasMessageContaining(" attempts): Cannot write object " + LOCKFILE + " at " + store.describe() + ": " + heldBy)
              .hasMessageEndingWith(" and the next transaction on this checkout publishes it")
              .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo("managed_config_unpublished"))
              .cause()
              .isExactlyInstanceOf(DatastoreBusyException.class)
              .hasMessageStartingWith("Cannot write object " + LOCKFILE + " at " + store.describe() + ": " + heldBy)
              .hasMessageContaining(started)
              .hasMessageEndingWith(" for PT5S (the lock timeout; a claim seen unchanged for PT5S is taken over); nothing changed")
              .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo("datastore_busy"));
          assertThat(Duration.between(start, clock.instant()))
              .as("retried until the deadline; the last attempt's lock wait may end one lock timeout after it")
              .isBetween(DEADLINE, DEADLINE.plus(LOCK_TIMEOUT));
          assertThat(a.transaction().pending()).map(PendingChange::state).contains(PendingChange.State.UNPUBLISHED);
          assertThat(versions(a.shared())).containsOnlyKeys("@acme/web");
        } finally {
          if (stop) {
            signal("CONT", child.pid());
          }
        }
        child.send("release");
        assertThat(child.nextLine()).isEqualTo("released");
        assertThat(child.awaitExit().code()).isZero();
      }

      TransactionResult after = a.put("@acme/api", "3.0.0");

      assertThat(after.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(versions(a.shared())).containsOnlyKeys("@acme/web", "@acme/db", "@acme/api");
      assertThat(a.transaction().pending()).isEmpty();
    }
  }

  /**
   * A writer that cannot get into the lease's own key within the wait (an earlier version's writer
   * keeps its OS lock) fails {@code datastore_busy}, the CLI's exit 75, never an outage (exit 69).
   */
  @Test
  void lockedPut_whileAnEarlierVersionHoldsTheLeaseKeysLock_isDatastoreBusy_notUnavailable() throws Exception {
    TestClock clock = TestClock.create();
    Path root = dir.resolve("tier");
    FileSystemDatastore store = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults()
        .withLockTimeout(LOCK_TIMEOUT).withClock(clock).withSleeper(clock.sleeper()));
    ObjectKey lease = Namespace.NONE.rootKey(DistributedLock.GLOBAL_LOCK_NAME);
    try (TestCheckout a = TestCheckout.builder(store, dir.resolve("a"), clock).commitMode(CommitMode.LOCKED)
        .lockOptions(LockOptions.DEFAULTS.withMaxWait(Duration.ofSeconds(20))).transactionDeadline(DEADLINE).build();
        ChildJvm child = ChildJvm.start("hold", root.toString(), lease.value())) {
      assertThat(child.nextLine()).isEqualTo("locked");

      assertThatThrownBy(() -> a.put("@acme/db", "2.0.0"))
          .isExactlyInstanceOf(DatastoreBusyException.class)
          .hasMessageStartingWith("Cannot write object " + lease + " at " + store.describe() + ": its lock stayed held by pid "
              + child.pid() + " on host ")
          .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo("datastore_busy"));
      assertThat(versions(TestCheckout.sharedLockfile(store, Namespace.NONE))).isEmpty();

      child.send("release");
      assertThat(child.nextLine()).isEqualTo("released");
      assertThat(child.awaitExit().code()).isZero();
    }
  }

  /** Sends {@code signal} ({@code STOP}, {@code CONT}) to a process with {@code kill}. */
  private static void signal(String signal, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS)).as("kill -%s returned", signal).isTrue();
    assertThat(kill.exitValue()).as("kill -%s %d", signal, pid).isZero();
  }
}
