package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.filesOutsideInternal;
import static dev.tierlock.datastore.fs.Fixtures.tempFiles;
import static dev.tierlock.datastore.fs.Fixtures.versions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.DistributedLock;
import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockInfo;
import dev.tierlock.Lockfile;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.internal.OsLockRegistry;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.TestCheckout;
import dev.tierlock.testkit.TestClock;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkouts in two JVMs on one shared directory, through {@link Tierlock} and the one path every
 * datastore takes: committing at the same time, and a checkout killed inside its change.
 */
class FileSystemCheckoutsProcessTest {

  private static final int COMMITS = 150;
  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final String VERDICT = ".tierlock-selfcheck/verdict";
  private static final Duration CHILD_TTL = Duration.ofSeconds(5);

  @TempDir
  Path temp;

  /**
   * Each JVM commits {@value #COMMITS} transactions on the real clock (a real race between two
   * processes; every wait is bounded by the lock and transaction deadlines): puts and removes of
   * names of its own scope, and increments of one shared name. The final lockfile holds exactly
   * what both acknowledged: each scope as its acknowledgements replay, and the counter at the sum
   * of both processes' acknowledged increments (a lost update would leave it lower).
   */
  @Test
  void commitsFromTwoJvmsAtOnce_keepEveryAcknowledgedChange_andLeaveNothingOutsideTheInternalDirectory()
      throws Exception {
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("shared"));
    Tierlock here = Tierlock.builder().datastore(store).checkout(temp.resolve("here")).lockOptions(CheckoutChild.FAST)
        .environment(Environment.system()
            .withLockIdentity(LockIdentity.of("parent@here", "parent-host", ProcessHandle.current().pid()))).build();
    List<String> hereAcks = new ArrayList<>();
    List<String> thereAcks = new ArrayList<>();

    try (here; ChildJvm child = ChildJvm.start(CheckoutChild.class, "commit", store.root().toString(),
        temp.resolve("there").toString(), "there", Integer.toString(COMMITS))) {
      here.transaction().refresh();
      assertThat(child.nextLine()).isEqualTo("ready");
      child.send("go");
      thereAcks.add(child.nextLine()); // the child's first commit; then ours; then both race
      CheckoutChild.commit(here, "here", COMMITS, Clock.systemUTC(), hereAcks::add, () -> {
        try {
          child.send("race");
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      ChildJvm.Exit exit = child.awaitExit();

      assertThat(exit.code()).as("child output %s", exit.lines()).isZero();
      assertThat(exit.lines()).last().isEqualTo("done");
      thereAcks.addAll(exit.lines().subList(0, exit.lines().size() - 1));
      assertThat(here.transaction().pending()).isEmpty();
    }

    assertThat(hereAcks).hasSize(COMMITS);
    assertThat(thereAcks).hasSize(COMMITS);
    Map<String, String> shared = versions(TestCheckout.sharedLockfile(store, Namespace.NONE));
    assertThat(scope(shared, "@here/")).isEqualTo(replay(hereAcks));
    assertThat(scope(shared, "@there/")).isEqualTo(replay(thereAcks));
    long increments = count(hereAcks, "inc") + count(thereAcks, "inc");
    assertThat(increments).isPositive();
    assertThat(shared.get(CheckoutChild.COUNTER.value())).isEqualTo(Long.toString(increments));
    assertThat(shared).hasSize(scope(shared, "@here/").size() + scope(shared, "@there/").size() + 1);
    List<String> order = List.copyOf(shared.keySet());
    assertThat(order.indexOf(first(order, "@there/"))).as("the JVMs raced: names are appended in commit order, %s", order)
        .isLessThan(order.indexOf(last(order, "@here/")));
    assertThat(order.indexOf(first(order, "@here/"))).isLessThan(order.indexOf(last(order, "@there/")));
    assertThat(filesOutsideInternal(store.root())).containsExactly(VERDICT, LOCKFILE.value());
    assertThat(tempFiles(store.root())).isEmpty();
  }

  /**
   * The child holds the global lease inside a transaction's change and is stopped by SIGTERM (an
   * operator's {@code kill}, a container stop): its shutdown hook releases the lease at once, so no
   * peer waits for the ttl; nothing of the stopped change is published, and the next run settles
   * whatever the stop left.
   */
  @Test
  void aCheckoutStoppedBySigterm_releasesItsLeaseAtOnce() throws Exception {
    Instant start = TestClock.DEFAULT_START;
    TestClock clock = TestClock.at(start);
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("shared"));
    Path machine = temp.resolve("machine");
    try (ChildJvm child = ChildJvm.start(CheckoutChild.class, "hold", store.root().toString(), machine.toString(),
        start.toString(), Long.toString(CHILD_TTL.toMillis()))) {
      assertThat(child.nextLine()).isEqualTo("holding " + child.pid());
      try (TestCheckout observer = TestCheckout.builder(store, temp.resolve("observer"), clock).build()) {
        assertThat(observer.tierlock().globalLock().inspect()).map(LockInfo::pid).contains(child.pid());

        child.terminate();

        assertThat(observer.tierlock().globalLock().inspect()).as("released by the shutdown hook, before its ttl")
            .isEmpty();
        assertThat(versions(shared(store))).as("nothing of the stopped change").containsOnlyKeys("@child/committed");
      }
    }
    try (TestCheckout restarted = TestCheckout.builder(store, machine, clock).build()) {
      assertThat(restarted.put("@machine/after", "1").status()).as("whatever the stop left settles on the next run")
          .isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(restarted.transaction().pending()).isEmpty();
    }
  }

  /**
   * The child commits one entry, then is killed inside a second transaction's change (holding the
   * global lease, the checkout's transaction lock and its pulled-extensions lock). The OS frees its
   * local locks, nothing of the killed change is published or left pending, and a restarted
   * checkout takes the dead holder's lease over only once its ttl has passed.
   */
  @Test
  void aCheckoutKilledInsideItsChange_freesItsLocks_publishesNothingOfIt_andItsLeaseIsTakenOverAfterItsTtl()
      throws Exception {
    Instant start = TestClock.DEFAULT_START;
    TestClock clock = TestClock.at(start);
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("shared"));
    Path machine = temp.resolve("machine");
    Path transactionLock = machine.resolve(Tierlock.DEFAULT_STATE_DIRECTORY).resolve("transaction.lock");
    try (TestCheckout peer = TestCheckout.builder(store, temp.resolve("peer"), clock).build()) {
      peer.put("@peer/before", "1");
    }
    String nonce;
    try (ChildJvm child = ChildJvm.start(CheckoutChild.class, "hold", store.root().toString(), machine.toString(),
        start.toString(), Long.toString(CHILD_TTL.toMillis()))) {
      assertThat(child.nextLine()).isEqualTo("holding " + child.pid());
      try (TestCheckout observer = TestCheckout.builder(store, temp.resolve("observer"), clock).build()) {
        LockInfo holder = observer.tierlock().globalLock().inspect().orElseThrow();
        assertThat(holder.pid()).isEqualTo(child.pid());
        assertThat(holder.ttl()).isEqualTo(CHILD_TTL);
        nonce = holder.nonce();
      }
      OsLockRegistry.Attempt busy = OsLockRegistry.shared().tryAcquire(transactionLock, "a probe of the test", clock);
      assertThat(busy).isInstanceOfSatisfying(OsLockRegistry.Attempt.Busy.class,
          b -> assertThat(b.holder()).hasValueSatisfying(h -> assertThat(h).startsWith("pid " + child.pid() + " on host ")));
      assertThat(versions(shared(store))).containsOnlyKeys("@peer/before", "@child/committed");

      child.kill();
    }

    OsLockRegistry.Attempt free = OsLockRegistry.shared().tryAcquire(transactionLock, "a probe of the test", clock);
    assertThat(free).as("the OS freed the dead process's transaction lock").isInstanceOf(OsLockRegistry.Attempt.Acquired.class);
    ((OsLockRegistry.Attempt.Acquired) free).lock().release();
    try (TestCheckout restarted = TestCheckout.builder(store, machine, clock).build()) {
      assertThat(restarted.transaction().pending()).as("the killed change left nothing pending").isEmpty();
      assertThat(restarted.tierlock().globalLock().inspect()).map(LockInfo::nonce).contains(nonce);
      assertThat(restarted.tierlock().globalLock().tryAcquire()).as("the dead holder's lease is live until its ttl")
          .isEmpty();

      TransactionResult result = restarted.transaction().run(tx -> tx.withPulledExtensionsLock(() -> {
        tx.put(ExtensionName.of("@machine/after"), restarted.entry("2"));
        return null;
      }));

      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(clock.instant()).as("taken over only once the ttl had passed").isAfter(start.plus(CHILD_TTL));
      assertThat(clock.slept()).as("every wait went through the injected sleeper")
          .isEqualTo(Duration.between(start, clock.instant()));
      assertThat(restarted.tierlock().globalLock().inspect()).isEmpty();
    }
    assertThat(versions(shared(store))).containsOnlyKeys("@peer/before", "@child/committed", "@machine/after");
    assertThat(store.stat(DistributedLock.globalKey(Namespace.NONE))).isEmpty();
    assertThat(filesOutsideInternal(store.root())).containsExactly(VERDICT, LOCKFILE.value());
  }

  /** Returns the entries whose name starts with {@code prefix}, sorted by name. */
  private static Map<String, String> scope(Map<String, String> entries, String prefix) {
    Map<String, String> out = new TreeMap<>();
    entries.forEach((name, version) -> {
      if (name.startsWith(prefix)) {
        out.put(name, version);
      }
    });
    return out;
  }

  /** Replays one process's acknowledged puts and removes of its own scope, sorted by name. */
  private static Map<String, String> replay(List<String> acks) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String ack : acks) {
      String[] parts = ack.split(" ");
      switch (parts[0]) {
        case "put" -> out.put(parts[1], parts[2]);
        case "rm" -> assertThat(out.remove(parts[1])).as("removed %s, which it had put", parts[1]).isNotNull();
        case "inc", "conflict" -> { }
        default -> throw new AssertionError("unknown acknowledgement " + ack);
      }
    }
    return new TreeMap<>(out);
  }

  private static String first(List<String> names, String prefix) {
    return names.stream().filter(n -> n.startsWith(prefix)).findFirst().orElseThrow();
  }

  private static String last(List<String> names, String prefix) {
    return names.stream().filter(n -> n.startsWith(prefix)).reduce((a, b) -> b).orElseThrow();
  }

  private static long count(List<String> acks, String ack) {
    return acks.stream().filter(ack::equals).count();
  }

  private static Lockfile shared(FileSystemDatastore store) {
    return TestCheckout.sharedLockfile(store, Namespace.NONE);
  }
}
