package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.versions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.CommitMode;
import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.testkit.TestCheckout;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A writer stopped with {@code SIGSTOP} inside a filesystem-datastore write: a child JVM reads the
 * shared lockfile, then writes its bytes back conditional on the version it read, and is stopped
 * just before the rename that would publish them (it says so on its stdout, and waits there for a
 * line: the latch that makes it stop at that point). The peers of this JVM commit all the same,
 * each within a transaction deadline of the takeover bound and 5 s more (a put that waits longer
 * fails, unpublished: an implementation that waits for the stopped writer fails here), and when the
 * child is resumed its write is refused by the version check, never applied: the shared
 * lockfile keeps every change the peers acknowledged.
 */
class FileSystemStoppedWriterProcessTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final Duration BOUND = FileSystemDatastoreOptions.DEFAULT_TAKEOVER_AFTER;
  private static final Duration SLACK = Duration.ofSeconds(5);
  private static final int PEERS = 3;
  private static final int PUTS = 3;
  private static final String STALLED_COMMIT = "stalled-child";

  @TempDir
  Path temp;

  /**
   * A conditional write resumed after the takeover is refused by its precondition (its version is
   * stale); an unconditional one, which no precondition refuses, fails busy ({@code datastore_busy}:
   * its claim was taken over). Either way it is never applied.
   */
  @ParameterizedTest(name = "condition {0}: {1}")
  @CsvSource({"match, refused", "none, busy datastore_busy"})
  void aWriterStoppedInsideItsWrite_blocksPeersAtMostTheBound_andItsWriteIsRefusedWhenItResumes(String condition,
      String outcome) throws Exception {
    Path root = temp.resolve("shared");
    FileSystemDatastore store = FileSystemDatastore.open(root);
    try (Tierlock seed = peer(store, "seed", BOUND.plus(SLACK))) {
      assertThat(seed.transaction().run(tx -> tx.put(ExtensionName.of("@seed/first"), entry("1"))).status())
          .isEqualTo(TransactionStatus.PUBLISHED);
    }
    Map<String, String> acknowledged = new LinkedHashMap<>(versions(TestCheckout.sharedLockfile(store, Namespace.NONE)));

    try (ChildJvm child = ChildJvm.start("stall", store.root().toString(), LOCKFILE.value(), STALLED_COMMIT,
        condition)) {
      assertThat(child.nextLine()).as("the child is inside its write").isEqualTo("inside");
      signal("STOP", child.pid());
      try {
        // each peer's transaction deadline is the takeover bound and 5 s more: a put that waited
        // longer would fail (unpublished), and so would this test
        commitFromPeers(store).forEach(acknowledged::putAll);
      } finally {
        signal("CONT", child.pid());
      }
      child.send("resume");

      assertThat(child.nextLine()).as("the resumed write").isEqualTo(outcome);
      assertThat(child.awaitExit().code()).isZero();
    }

    assertThat(versions(TestCheckout.sharedLockfile(store, Namespace.NONE))).as("every acknowledged change")
        .isEqualTo(acknowledged);
    assertThat(store.stat(LOCKFILE).orElseThrow().metadata().values())
        .doesNotContainEntry(ObjectMetadata.COMMIT_ID, STALLED_COMMIT);
    assertThat(acknowledged).hasSize(2 + PEERS * PUTS);
  }

  /**
   * Runs {@value #PEERS} checkouts of this JVM at once, each on its own datastore instance, each
   * putting {@value #PUTS} names of its own; returns what each acknowledged.
   */
  private List<Map<String, String>> commitFromPeers(FileSystemDatastore store) throws Exception {
    // the bound: the first commit past the stopped writer lands within the takeover bound and the
    // slack (its deadline); the contended commits after it, which the stopped writer no longer
    // blocks, get a deadline no loaded machine runs out of
    Map<String, String> first = new LinkedHashMap<>();
    try (Tierlock peer = peer(FileSystemDatastore.open(store.root()), "first", BOUND.plus(SLACK))) {
      ExtensionName name = ExtensionName.of("@first/e0");
      LockfileEntry entry = entry("v0");
      assertThat(peer.transaction().run(tx -> tx.put(name, entry)).status()).isEqualTo(TransactionStatus.PUBLISHED);
      first.put(name.value(), entry.version());
    }
    ExecutorService threads = Executors.newFixedThreadPool(PEERS);
    try {
      List<Future<Map<String, String>>> peers = new ArrayList<>();
      for (int p = 0; p < PEERS; p++) {
        String scope = "peer" + p;
        peers.add(threads.submit(() -> {
          Map<String, String> acks = new LinkedHashMap<>();
          try (Tierlock peer = peer(FileSystemDatastore.open(store.root()), scope,
              Duration.ofSeconds(ChildJvm.WAIT_SECONDS))) {
            for (int i = 0; i < PUTS; i++) {
              ExtensionName name = ExtensionName.of("@" + scope + "/e" + i);
              LockfileEntry entry = entry("v" + i);
              assertThat(peer.transaction().run(tx -> tx.put(name, entry)).status()).isEqualTo(TransactionStatus.PUBLISHED);
              acks.put(name.value(), entry.version());
            }
          }
          return acks;
        }));
      }
      List<Map<String, String>> acks = new ArrayList<>();
      acks.add(first);
      for (Future<Map<String, String>> peer : peers) {
        acks.add(peer.get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS));
      }
      return acks;
    } finally {
      threads.shutdownNow();
    }
  }

  /** A checkout on the real clock, optimistic (no global lease: only the datastore's own exclusion is in play). */
  private Tierlock peer(FileSystemDatastore store, String name, Duration deadline) {
    return Tierlock.builder().datastore(store).checkout(temp.resolve(name)).commitMode(CommitMode.OPTIMISTIC)
        .transactionDeadline(deadline)
        .environment(Environment.system()
            .withLockIdentity(LockIdentity.of("peer@" + name, "peer-host", ProcessHandle.current().pid())))
        .build();
  }

  private static LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, Instant.parse("2026-01-01T00:00:00Z")).build();
  }

  /** Sends {@code signal} ({@code STOP}, {@code CONT}) to a process with {@code kill}. */
  private static void signal(String signal, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS)).as("kill -%s returned", signal).isTrue();
    assertThat(kill.exitValue()).as("kill -%s %d", signal, pid).isZero();
  }
}
