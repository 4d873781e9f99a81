package dev.tierlock.datastore.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.testkit.TestCheckout;
import dev.tierlock.testkit.TestClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two separate JVMs ({@link S3PeerProcess}), each with its own checkout and cache, share one bucket
 * of the real S3 server: each puts {@value #OWN} names of its own, one transaction per name, while
 * the other does the same; then both remove and put back the same {@value #SHARED} seeded names
 * with versions of their own. The server logs every object it stores. Afterwards the lockfiles it
 * stored, in its order, must each be their predecessor plus exactly one acknowledged change
 * ({@link LockfileHistory}), every acknowledged change must be there, the shared lockfile must be
 * what the acknowledged changes make in that order, and nothing but the lockfile, the global lock
 * and the self-check's probes and verdict may ever have been written, with only the lockfile and
 * the verdict left at the end.
 * Peer A opens the bucket through the {@code s3://} provider URI, peer B through its own client.
 */
@ExtendWith(S3ServerExtension.class)
class S3TwoProcessTest {

  private static final int OWN = 200;
  private static final int SHARED = 50;
  private static final String PREFIX = "tier/";
  private static final String LOCKFILE_KEY = PREFIX + TierPath.LOCKFILE.value();
  private static final String LOCK_KEY = PREFIX + ".datastore.lock";
  /** The lock's reservation of the next turn, which a peer that waited past its bound may claim. */
  private static final String RESERVATION_KEY = LOCK_KEY + ".reservation";
  /** Where the datastore self-check writes its probes (a few per process), relative to the prefix. */
  private static final String PROBE_PATTERN = "\\.tierlock-selfcheck/probe-[0-9]+-[0-9a-f-]{36}";
  /** The self-check's verdict, which stays, relative to the prefix. */
  private static final String VERDICT_KEY = PREFIX + ".tierlock-selfcheck/verdict";
  private static final Duration START = Duration.ofSeconds(60);
  private static final Duration PASS = Duration.ofSeconds(120);
  private static final Duration EXIT = Duration.ofSeconds(30);

  @Test
  @Timeout(400)
  void twoProcesses_onOneBucket_loseNoAcknowledgedChangeAndUploadNoInternalFile(S3TestBucket bucket, @TempDir Path dir)
      throws Exception {
    ServerObjectLog writes = bucket.recordWrites(LOCKFILE_KEY::equals);
    Map<String, String> seed = seed(bucket, dir);
    List<String> properties = List.of("aws.accessKeyId=" + S3TestServer.ACCESS_KEY,
        "aws.secretAccessKey=" + S3TestServer.SECRET_KEY, "aws.disableEc2Metadata=true");
    List<PeerProcess> peers = new ArrayList<>();
    long started;
    long finished;
    try {
      for (String[] peer : List.of(new String[] {"alpha", "uri"}, new String[] {"beta", "client"})) {
        peers.add(PeerProcess.start(peer[0], properties, List.of(peer[0], peer[1], bucket.server().endpoint().toString(),
            bucket.name(), PREFIX, dir.resolve(peer[0]).toString(), Integer.toString(OWN), Integer.toString(SHARED)),
            dir));
      }
      for (PeerProcess peer : peers) {
        peer.awaitLine("ready", START);
      }
      started = System.nanoTime();
      for (String phase : List.of("own-done", "done")) {
        for (PeerProcess peer : peers) {
          peer.send("go");
        }
        for (PeerProcess peer : peers) {
          peer.awaitLine(phase, PASS);
        }
      }
      finished = System.nanoTime();
      for (PeerProcess peer : peers) {
        assertThat(peer.awaitExit(EXIT)).as("exit code of %s%n%s", peer.name(), peer.output()).isZero();
      }
    } finally {
      for (PeerProcess peer : peers) {
        peer.close();
      }
    }

    List<AcknowledgedChange> acknowledged = new ArrayList<>();
    for (PeerProcess peer : peers) {
      List<AcknowledgedChange> changes = peer.lines().stream().filter(l -> l.startsWith("ack "))
          .map(AcknowledgedChange::parse).toList();
      assertThat(changes).as("changes %s logged%n%s", peer.name(), peer.output()).hasSize(OWN + 2 * SHARED);
      acknowledged.addAll(changes);
    }
    List<LockfileHistory.Publication> publications = publications(writes);
    Map<String, String> shared = versions(TestCheckout.sharedLockfile(bucket.datastore("tier"), Namespace.NONE));
    report(seed, publications, acknowledged, writes, Duration.ofNanos(finished - started));

    assertThat(LockfileHistory.problems(seed, publications, acknowledged, shared)).isEmpty();
    Map<String, String> expected = LockfileHistory.replay(seed, publications, acknowledged);
    assertThat(shared).isEqualTo(expected).hasSize(2 * OWN + SHARED);
    for (String peer : List.of("alpha", "beta")) {
      for (int i = 0; i < OWN; i++) {
        assertThat(shared).containsEntry(String.format("@%s/ext-%03d", peer, i), "1.0." + i);
      }
    }
    for (int i = 0; i < SHARED; i++) {
      assertThat(shared.get(String.format("@shared/ext-%03d", i))).isIn("alpha." + i, "beta." + i);
    }
    assertOnlyTierPathsTheLockAndProbesWereWritten(writes);
    assertThat(S3DatastoreTest.rawKeys(bucket)).as("what the bucket holds at the end")
        .containsExactly(VERDICT_KEY, LOCKFILE_KEY);
  }

  /** Seeds the shared names at version {@code seed} in one transaction of a checkout in this JVM. */
  private static Map<String, String> seed(S3TestBucket bucket, Path dir) {
    Map<String, String> seed = new LinkedHashMap<>();
    try (TestCheckout checkout = TestCheckout.builder(bucket.datastore("tier"), dir.resolve("seed"), TestClock.create())
        .build()) {
      checkout.transaction().run(tx -> {
        for (int i = 0; i < SHARED; i++) {
          String name = String.format("@shared/ext-%03d", i);
          tx.put(ExtensionName.of(name), checkout.entry("0.0.0-seed"));
          seed.put(name, "0.0.0-seed");
        }
      });
    }
    return seed;
  }

  private static List<LockfileHistory.Publication> publications(ServerObjectLog writes) {
    List<LockfileHistory.Publication> publications = new ArrayList<>();
    for (ServerObjectLog.Event event : writes.events(ServerObjectLog.Kind.STORED)) {
      if (event.key().equals(LOCKFILE_KEY)) {
        Lockfile lockfile = Lockfile.parse(event.body(), "stored lockfile #" + publications.size());
        String commitId = ObjectMetadata.lenient(event.metadata()).get(ObjectMetadata.COMMIT_ID).orElse("(none)");
        publications.add(new LockfileHistory.Publication(commitId, versions(lockfile)));
      }
    }
    return publications;
  }

  private static Map<String, String> versions(Lockfile lockfile) {
    Map<String, String> versions = new LinkedHashMap<>();
    lockfile.entries().forEach((name, entry) -> versions.put(name.value(), entry.version()));
    return versions;
  }

  /**
   * Asserts that the server stored nothing but the shared lockfile, the global lock (and its
   * reservation of the next turn, deleted again), the self-check's probes (at least one per process: the seeding checkout and two peers, each of
   * them deleted again) and its verdict, and that none of them but the lock and the self-check's
   * objects is an internal name.
   */
  private static void assertOnlyTierPathsTheLockAndProbesWereWritten(ServerObjectLog writes) {
    Set<String> stored = writes.events(ServerObjectLog.Kind.STORED).stream().map(ServerObjectLog.Event::key)
        .collect(Collectors.toCollection(TreeSet::new));
    Set<String> probes = stored.stream().filter(k -> k.substring(PREFIX.length()).matches(PROBE_PATTERN))
        .collect(Collectors.toCollection(TreeSet::new));
    assertThat(probes).as("self-check probes").hasSizeGreaterThanOrEqualTo(3);
    Set<String> deleted = writes.events(ServerObjectLog.Kind.DELETED).stream().map(ServerObjectLog.Event::key)
        .collect(Collectors.toSet());
    assertThat(deleted).as("deleted keys").containsAll(probes).contains(LOCK_KEY).doesNotContain(VERDICT_KEY);
    if (stored.contains(RESERVATION_KEY)) {
      assertThat(deleted).as("a reservation claimed is removed once used").contains(RESERVATION_KEY);
    }
    Set<String> others = new TreeSet<>(stored);
    others.removeAll(probes);
    others.remove(LOCK_KEY);
    others.remove(RESERVATION_KEY);
    others.remove(VERDICT_KEY);
    assertThat(others).as("keys stored besides the lock and the self-check's objects").containsExactly(LOCKFILE_KEY);
    for (String key : others) {
      String relative = key.substring(PREFIX.length());
      assertThat(TierPath.isInternal(relative)).as("%s is internal", key).isFalse();
      assertThat(relative).doesNotContain(".tmp").doesNotContain(".lock").doesNotContain(".swamp");
    }
  }

  private static void report(Map<String, String> seed, List<LockfileHistory.Publication> publications,
      List<AcknowledgedChange> acknowledged, ServerObjectLog writes, Duration took) {
    StringBuilder text = new StringBuilder("two processes, one bucket: ")
        .append(acknowledged.size()).append(" transactions in ").append(took.toMillis()).append(" ms; ")
        .append(publications.size()).append(" lockfiles stored (1 seed); ");
    for (String peer : List.of("alpha", "beta")) {
      List<AcknowledgedChange> mine = acknowledged.stream().filter(c -> c.process().equals(peer)).toList();
      text.append(peer).append(": ")
          .append(mine.stream().filter(c -> c.status() == TransactionStatus.PUBLISHED).count()).append(" published, ")
          .append(mine.stream().filter(c -> c.status() == TransactionStatus.NO_CHANGE).count()).append(" no-change, ")
          .append(mine.stream().filter(c -> c.attempts() > 1).count()).append(" with a publish retry, slowest ")
          .append(mine.stream().mapToLong(AcknowledgedChange::millis).max().orElse(0)).append(" ms, mean ")
          .append(Math.round(mine.stream().mapToLong(AcknowledgedChange::millis).average().orElse(0))).append(" ms; ");
    }
    long switches = 0;
    for (int i = 2; i < publications.size(); i++) {
      String previous = publications.get(i - 1).commitId().replaceAll("-.*", "");
      if (!publications.get(i).commitId().startsWith(previous + "-")) {
        switches++;
      }
    }
    text.append("the lockfile passed from one peer to the other ").append(switches).append(" times; ");
    text.append("lock: ").append(writes.count(ServerObjectLog.Kind.STORED, LOCK_KEY)).append(" writes, ")
        .append(writes.count(ServerObjectLog.Kind.READ, LOCK_KEY)).append(" reads (one per busy attempt), ")
        .append(writes.count(ServerObjectLog.Kind.DELETED, LOCK_KEY)).append(" releases; lockfile writes refused: ")
        .append(writes.count(ServerObjectLog.Kind.REFUSED, LOCKFILE_KEY)).append("; seed of ").append(seed.size());
    System.out.println(text);
  }
}
