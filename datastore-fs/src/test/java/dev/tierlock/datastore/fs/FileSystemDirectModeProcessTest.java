package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.filesOutsideInternal;
import static dev.tierlock.datastore.fs.Fixtures.versions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.LeaseLocks;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockInfo;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileCodec;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.TestCheckout;
import dev.tierlock.testkit.TestClock;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Direct mode across processes: {@link DirectModeChild} in a second JVM and this JVM, each a
 * checkout of one shared directory, committing at the same time, and a holder killed with every
 * lock in hand.
 */
class FileSystemDirectModeProcessTest {

  private static final int ENTRIES = 100;
  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final Duration CHILD_TTL = Duration.ofSeconds(5);

  @TempDir
  Path temp;

  @Test
  void run_fromTwoJvmsAtOnce_commitsEveryEntry_andLeavesNoLockOrTempFileOutsideTheInternalDirectory()
      throws Exception {
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("shared"));
    Tierlock here = Tierlock.builder().datastore(store).checkout(temp.resolve("here")).lockOptions(DirectModeChild.FAST)
        .lockIdentity(LockIdentity.of("parent@here", "parent-host", ProcessHandle.current().pid())).build();

    try (here; ChildJvm child = ChildJvm.start(DirectModeChild.class, "commit", store.root().toString(),
        temp.resolve("there").toString(), "there", Integer.toString(ENTRIES))) {
      here.transaction().refresh();
      assertThat(child.nextLine()).isEqualTo("ready");
      child.send("go");
      DirectModeChild.putAll(here, "here", ENTRIES, Clock.systemUTC());
      ChildJvm.Exit exit = child.awaitExit();

      assertThat(exit.code()).as("child output %s", exit.lines()).isZero();
      assertThat(exit.lines()).containsExactly("committed " + ENTRIES);
    }

    Path file = store.pathOf(LOCKFILE);
    Lockfile lockfile = LockfileCodec.decode(Files.readAllBytes(file), file.toString());
    List<String> expected = new ArrayList<>();
    for (String scope : List.of("here", "there")) {
      IntStream.range(0, ENTRIES).forEach(i -> expected.add("@" + scope + "/e" + i));
    }
    assertThat(versions(lockfile).keySet()).hasSize(2 * ENTRIES).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(filesOutsideInternal(store.root())).containsExactly(LOCKFILE.value());
    assertThat(here.repository().lockPath().startsWith(store.root().resolve(RootLayout.INTERNAL))).isTrue();
  }

  @Test
  void holderKilledWithEveryLock_freesTheOsLocks_andItsLeaseIsTakenOverOnlyAfterItsTtl() throws Exception {
    Instant start = TestClock.DEFAULT_START;
    TestClock clock = TestClock.at(start);
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("shared"));
    Path machine = temp.resolve("machine");
    try (TestCheckout peer = TestCheckout.builder(store, temp.resolve("peer"), clock).build()) {
      peer.put("@peer/before", "1");
    }
    Path lockfileLock;
    String nonce;
    try (ChildJvm child = ChildJvm.start(DirectModeChild.class, "hold", store.root().toString(), machine.toString(),
        start.toString(), Long.toString(CHILD_TTL.toMillis()))) {
      assertThat(child.nextLine()).startsWith("holding " + child.pid() + " ").endsWith(" true");
      try (TestCheckout observer = TestCheckout.builder(store, temp.resolve("observer"), clock).build()) {
        LockInfo holder = observer.tierlock().globalLock().inspect().orElseThrow();
        assertThat(holder.pid()).isEqualTo(child.pid());
        assertThat(holder.ttl()).isEqualTo(CHILD_TTL);
        nonce = holder.nonce();
        lockfileLock = observer.tierlock().repository().lockPath();
      }
      assertThat(osLockIsFree(lockfileLock)).as("the child holds the lockfile's OS lock").isFalse();
      assertThat(versions(shared(store))).containsOnlyKeys("@peer/before", "@child/committed", "@child/inflight");

      child.kill();
    }

    assertThat(osLockIsFree(lockfileLock)).as("the OS freed the lockfile lock of the dead process").isTrue();
    TestCheckout restarted = TestCheckout.builder(store, machine, clock).build();
    try (restarted) {
      assertThat(restarted.tierlock().pulledExtensionsLock().tryAcquire()).as("the OS freed the pulled-extensions lock")
          .hasValueSatisfying(section -> section.close());
      assertThat(restarted.tierlock().globalLock().inspect()).map(LockInfo::nonce).contains(nonce);
      assertThat(restarted.tierlock().globalLock().tryAcquire()).as("the dead holder's lease is live until its ttl")
          .isEmpty();

      LockfileEntry after = restarted.entry("2");
      TransactionResult result = restarted.transaction().run(tx -> tx.withPulledExtensionsLock(
          section -> tx.repository().writeEntry(ExtensionName.of("@machine/after"), after)));

      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(clock.instant()).as("taken over only once the ttl had passed").isAfter(start.plus(CHILD_TTL));
      assertThat(clock.slept()).as("every wait went through the injected sleeper")
          .isEqualTo(Duration.between(start, clock.instant()));
      assertThat(restarted.tierlock().globalLock().inspect()).isEmpty();
    }
    assertThat(versions(shared(store))).containsOnlyKeys("@peer/before", "@child/committed", "@child/inflight",
        "@machine/after");
    assertThat(store.stat(LeaseLocks.globalKey(Namespace.NONE))).isEmpty();
    assertThat(filesOutsideInternal(store.root())).containsExactly(LOCKFILE.value());
  }

  /** Returns whether an OS lock on {@code lockFile} can be taken now (and releases it at once). */
  private static boolean osLockIsFree(Path lockFile) throws IOException {
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock()) {
      return lock != null;
    }
  }

  private static Lockfile shared(FileSystemDatastore store) {
    return TestCheckout.sharedLockfile(store, Namespace.NONE);
  }
}
