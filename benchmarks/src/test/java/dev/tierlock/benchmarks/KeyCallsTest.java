package dev.tierlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.CommitMode;
import dev.tierlock.ExtensionName;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.testkit.CountingDatastore;
import dev.tierlock.testkit.FakeRemote;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyCallsTest {

  private static final String SHA = "a".repeat(64);

  @Test
  void eachKeyIsItsKind_underANamespaceToo() {
    for (Namespace namespace : new Namespace[] {Namespace.NONE, Namespace.of("team")}) {
      assertThat(KeyCalls.Kind.of(namespace.key(TierPath.LOCKFILE))).isEqualTo(KeyCalls.Kind.LOCKFILE);
      assertThat(KeyCalls.Kind.of(namespace.rootKey(".datastore.lock"))).isEqualTo(KeyCalls.Kind.LEASE);
      assertThat(KeyCalls.Kind.of(namespace.rootKey(".datastore.lock.reservation")))
          .isEqualTo(KeyCalls.Kind.RESERVATION);
      assertThat(KeyCalls.Kind.of(namespace.key(ExtensionArchiveKey.of(ExtensionName.of("@a/b"), SHA).tierPath())))
          .isEqualTo(KeyCalls.Kind.ARCHIVE);
      assertThat(KeyCalls.Kind.of(namespace.rootKey(".tierlock-archives/@a/b/" + SHA))).isEqualTo(KeyCalls.Kind.MARK);
      assertThat(KeyCalls.Kind.of(namespace.rootKey(".tierlock-selfcheck/verdict")))
          .isEqualTo(KeyCalls.Kind.SELF_CHECK);
      assertThat(KeyCalls.Kind.of(namespace.rootKey("notes.txt"))).isEqualTo(KeyCalls.Kind.OTHER);
    }
  }

  @Test
  void aLockedWarmCommit_isCountedByObject_andEveryCallTheCounterSawIsClassified(@TempDir Path dir) {
    try (FakeRemote remote = FakeRemote.create(); KeyCalls keys = new KeyCalls(remote);
        CountingDatastore counting = CountingDatastore.wrap(keys);
        Tierlock tierlock = TierlockCommitter.open(counting, dir.resolve("checkout"), "keys", CommitMode.LOCKED,
            Protocol.GroupCommit.ON)) {
      tierlock.checkDatastore();
      TierlockCommitter committer = new TierlockCommitter(tierlock);
      committer.put(ExtensionName.of("@bench/first"), Fixtures.plainEntry("1.0.0"));
      keys.reset();
      counting.reset();

      committer.put(ExtensionName.of("@bench/second"), Fixtures.plainEntry("1.0.0"));

      KeyCalls.Counts counts = keys.counts();
      assertThat(counts.of(KeyCalls.Kind.LEASE, KeyCalls.Call.WRITE)).isEqualTo(1);
      assertThat(counts.of(KeyCalls.Kind.LEASE, KeyCalls.Call.DELETE)).isEqualTo(1);
      assertThat(counts.of(KeyCalls.Kind.LOCKFILE, KeyCalls.Call.READ)).isEqualTo(1);
      assertThat(counts.of(KeyCalls.Kind.LOCKFILE, KeyCalls.Call.WRITE)).isEqualTo(1);
      assertThat(counts.total()).isEqualTo(counting.total()).isEqualTo(4);
      assertThat(counts.describe(1)).isEqualTo("lockfile: 1 read, 1 write; lease: 1 write, 1 delete");
      assertThat(keys.medianWriteMillis(KeyCalls.Kind.LOCKFILE)).as("the one lockfile write, timed").isNotNaN()
          .isGreaterThanOrEqualTo(0);
      assertThat(keys.medianWriteMillis(KeyCalls.Kind.ARCHIVE)).as("no archive written").isNaN();
    }
  }

  @Test
  void aRefusedWrite_isCountedApart_fromAWriteThatLanded() {
    try (FakeRemote remote = FakeRemote.create(); KeyCalls keys = new KeyCalls(remote)) {
      keys.write(Namespace.NONE.rootKey("notes.txt"), ObjectBody.of(new byte[] {1}), WriteCondition.mustNotExist(),
          ObjectMetadata.EMPTY);
      keys.write(Namespace.NONE.rootKey("notes.txt"), ObjectBody.of(new byte[] {2}), WriteCondition.mustNotExist(),
          ObjectMetadata.EMPTY);

      assertThat(keys.counts().of(KeyCalls.Kind.OTHER, KeyCalls.Call.WRITE)).isEqualTo(1);
      assertThat(keys.counts().of(KeyCalls.Kind.OTHER, KeyCalls.Call.REFUSED_WRITE)).isEqualTo(1);
      assertThat(keys.counts().describe(2)).isEqualTo("other: 0.5 write, 0.5 refused write");
    }
  }
}
