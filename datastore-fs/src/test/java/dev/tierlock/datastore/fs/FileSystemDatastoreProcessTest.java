package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static dev.tierlock.datastore.fs.Fixtures.found;
import static dev.tierlock.datastore.fs.Fixtures.keys;
import static dev.tierlock.datastore.fs.Fixtures.text;
import static dev.tierlock.datastore.fs.Fixtures.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.LockIdentity;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import dev.tierlock.testkit.TestClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writers in two JVMs on one directory: races, crashes and held locks across processes. */
class FileSystemDatastoreProcessTest {

  private static final int KEYS = 100;
  private static final int INCREMENTS = 15;
  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");
  private static final ObjectMetadata OLD_META = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "old");

  @TempDir
  Path root;

  @Test
  void write_racingAnotherJvmAndInstances_hasOneWinnerPerKeyAndLosesNoIncrement() throws Exception {
    FileSystemDatastore first = FileSystemDatastore.open(root);
    FileSystemDatastore second = FileSystemDatastore.open(root);
    written(first.write(ChildProcess.COUNTER, body("0"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY));
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (ChildJvm child = ChildJvm.start("race", root.toString(), "child", Integer.toString(KEYS),
        Integer.toString(INCREMENTS))) {
      assertThat(child.nextLine()).isEqualTo("ready");
      CountDownLatch go = new CountDownLatch(1);
      Future<Race> a = threads.submit(() -> race(first, "a", go));
      Future<Race> b = threads.submit(() -> race(second, "b", go));
      child.send("go");
      go.countDown();
      ChildJvm.Exit exit = child.awaitExit();

      assertThat(exit.code()).as("child output %s", exit.lines()).isZero();
      Map<Integer, List<String>> winners = new HashMap<>();
      exit.lines().stream().filter(l -> l.startsWith("won "))
          .forEach(l -> winners.computeIfAbsent(Integer.parseInt(l.substring(4)), i -> new ArrayList<>()).add("child"));
      for (Race race : List.of(a.get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS), b.get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS))) {
        race.won().forEach(i -> winners.computeIfAbsent(i, k -> new ArrayList<>()).add(race.label()));
        assertThat(race.increments()).isEqualTo(INCREMENTS);
      }
      assertThat(exit.lines()).contains("increments " + INCREMENTS);
      for (int i = 0; i < KEYS; i++) {
        assertThat(winners.get(i)).as("winners of race/k%d", i).hasSize(1);
        assertThat(text(found(first.read(ObjectKey.of("race/k" + i), ReadCondition.always(), Lockfile.MAX_BYTES)).bytes()))
            .isEqualTo(winners.get(i).get(0));
      }
      assertThat(text(found(first.read(ChildProcess.COUNTER, ReadCondition.always(), Lockfile.MAX_BYTES)).bytes()))
          .isEqualTo(Integer.toString(3 * INCREMENTS));
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void crash_betweenStagingAndTheMove_leavesTheOldObjectAndAClaimThatListingIgnores_takenOverByTheNextWrite()
      throws Exception {
    FileSystemDatastore store = FileSystemDatastore.open(root);
    ObjectVersion old = written(store.write(KEY, body("old bytes"), WriteCondition.none(), OLD_META));

    try (ChildJvm child = ChildJvm.start("crash", root.toString(), KEY.value(), "new bytes", "new", "object")) {
      assertThat(child.nextLine()).isEqualTo("crashing");
      assertThat(child.awaitExit().code()).isEqualTo(ChildProcess.CRASHED);
    }

    assertThat(Fixtures.tempFiles(root)).extracting(p -> p.getFileName().toString())
        .containsExactlyInAnyOrder(KeyClaims.OWNER, "staged-1");
    assertThat(Fixtures.tempFiles(root)).allSatisfy(f -> assertThat(f.getParent().getParent())
        .isEqualTo(new RootLayout(store.root()).claimSlot(KEY)));
    assertThat(Fixtures.filesOutsideInternal(root)).containsExactly(KEY.value());
    assertOld(store, old);
    assertThat(keys(store.list(""))).containsExactly(KEY.value());
    TestClock clock = TestClock.create();
    FileSystemDatastore next = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults()
        .withClock(clock).withSleeper(clock.sleeper()));
    ObjectVersion written = written(next.write(KEY, body("next"), WriteCondition.mustMatch(old), OLD_META));
    assertThat(store.stat(KEY).orElseThrow().version()).isEqualTo(written);
    assertThat(clock.slept()).as("the dead writer's claim was taken over after the bound, on the writer's own clock")
        .isGreaterThanOrEqualTo(FileSystemDatastoreOptions.DEFAULT_TAKEOVER_AFTER)
        .isLessThan(FileSystemDatastoreOptions.DEFAULT_LOCK_TIMEOUT);
    assertThat(Fixtures.tempFiles(root)).isEmpty();
  }

  @Test
  void crash_ofAMetadataChangeBeforeItsCommit_leavesTheOldMetadataAndVersion() throws Exception {
    FileSystemDatastore store = FileSystemDatastore.open(root);
    ObjectVersion old = written(store.write(KEY, body("old bytes"), WriteCondition.none(), OLD_META));

    try (ChildJvm child = ChildJvm.start("crash", root.toString(), KEY.value(), "old bytes", "new", "meta")) {
      assertThat(child.nextLine()).isEqualTo("crashing");
      assertThat(child.awaitExit().code()).isEqualTo(ChildProcess.CRASHED);
    }

    assertOld(store, old);
    assertThat(keys(store.list(""))).containsExactly(KEY.value());
  }

  @Test
  void write_whileAnotherProcessHoldsTheKeyLock_timesOutOnTheInjectedClockAndChangesNothing() throws Exception {
    ObjectVersion old = written(FileSystemDatastore.open(root).write(KEY, body("old bytes"), WriteCondition.none(), OLD_META));
    TestClock clock = TestClock.create();
    FileSystemDatastore store = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults()
        .withLockTimeout(Duration.ofSeconds(5)).withClock(clock).withSleeper(clock.sleeper()));

    try (ChildJvm child = ChildJvm.start("hold", root.toString(), KEY.value())) {
      assertThat(child.nextLine()).isEqualTo("locked");

      String heldBy = "its lock stayed held by pid " + child.pid() + " on host " + LockIdentity.current().hostname() + " since ";
      String started = "; started " + ProcessHandle.of(child.pid()).orElseThrow().info().startInstant().orElseThrow() + " (";
      assertThatThrownBy(() -> store.write(KEY, body("new"), WriteCondition.mustMatch(old), OLD_META))
          .isExactlyInstanceOf(DatastoreBusyException.class)
          .hasMessageStartingWith("Cannot write object " + KEY + " at " + store.describe() + ": " + heldBy)
          .hasMessageContaining(started)
          .hasMessageEndingWith(" for PT5S (the lock timeout; a claim seen unchanged for PT5S is taken over); nothing changed")
          .extracting(e -> ((TierlockException) e).code()).isEqualTo("datastore_busy");
      assertThatThrownBy(() -> store.delete(KEY, WriteCondition.none()))
          .isExactlyInstanceOf(DatastoreBusyException.class)
          .hasMessageStartingWith("Cannot delete object " + KEY + " at " + store.describe() + ": " + heldBy)
          .hasMessageContaining(started);
      assertThat(clock.sleeps().stream().reduce(Duration.ZERO, Duration::plus)).isEqualTo(Duration.ofSeconds(10));
      assertOld(store, old);

      child.send("release");
      assertThat(child.nextLine()).isEqualTo("released");
      assertThat(child.awaitExit().code()).isZero();
    }
    assertThat(store.write(KEY, body("new"), WriteCondition.mustMatch(old), OLD_META)).isInstanceOf(WriteResult.Written.class);
  }

  private static Race race(FileSystemDatastore store, String label, CountDownLatch go) throws InterruptedException {
    go.await();
    List<Integer> won = ChildProcess.createAll(store, label, KEYS);
    return new Race(label, won, ChildProcess.increment(store, label, INCREMENTS));
  }

  private record Race(String label, List<Integer> won, int increments) {}

  private static void assertOld(FileSystemDatastore store, ObjectVersion old) {
    ReadResult.Found found = found(store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES));
    assertThat(text(found.bytes())).isEqualTo("old bytes");
    assertThat(found.object()).isEqualTo(new StoredObject(KEY, old, 9, OLD_META));
  }
}
