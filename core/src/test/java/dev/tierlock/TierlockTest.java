package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TierlockTest {

  private static final ExtensionName NAME = ExtensionName.of("@s/x");
  private static final Namespace TEAM = Namespace.of("team");

  @TempDir Path dir;

  private final ManualClock clock = ManualClock.create();

  private Tierlock.Builder builder(dev.tierlock.spi.Datastore store) {
    return Tierlock.builder().datastore(store).checkout(dir).namespace(TEAM).clock(clock).sleeper(clock.sleeper())
        .random(new SplittableRandom(1)).heartbeats((name, interval, beat) -> () -> { });
  }

  private static LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, "2026-01-01T00:00:00.000Z").build();
  }

  @Test
  void build_usesTheDefaultDirectoriesAndKeys() {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).build()) {
      assertThat(tierlock.mode()).isEqualTo(SyncMode.REMOTE);
      assertThat(tierlock.stateDirectory()).isEqualTo(dir.toAbsolutePath().resolve(".swamp"));
      assertThat(tierlock.cacheDirectory()).isEqualTo(dir.toAbsolutePath().resolve(".swamp/tier-cache"));
      assertThat(tierlock.stateDirectory()).isDirectory();
      assertThat(tierlock.syncPort().lockfilePath())
          .isEqualTo(tierlock.cacheDirectory().resolve("team/config/upstream_extensions.json"));
      assertThat(tierlock.repository().path()).isEqualTo(tierlock.syncPort().lockfilePath());
      assertThat(tierlock.pendingChanges().path()).isEqualTo(tierlock.stateDirectory().resolve(PendingChangeStore.FILE_NAME));
      assertThat(tierlock.globalLock().describe()).contains("team/.datastore.lock");
      assertThat(tierlock.datastore()).isInstanceOf(SelfCheckedDatastore.class);
      assertThat(tierlock.namespace()).isEqualTo(TEAM);
    }
    assertThat(memory.isClosed()).as("a datastore passed in stays open").isFalse();
  }

  @Test
  void build_withoutCheckoutOrDatastore_isRejected() {
    assertThatThrownBy(() -> Tierlock.builder().datastore(new MemoryDatastore()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot build Tierlock: no checkout directory was set");
    assertThatThrownBy(() -> Tierlock.builder().checkout(dir).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot build Tierlock: no datastore was set");
    assertThatThrownBy(() -> Tierlock.builder().transactionDeadline(java.time.Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be positive");
  }

  @Test
  void build_fromAUri_opensTheDatastoreAndClosesItOnClose() {
    Tierlock tierlock = Tierlock.builder().datastore(URI.create("memory://bucket")).checkout(dir).build();
    MemoryDatastore opened = TestDatastoreProvider.LAST.get();
    assertThat(opened.isClosed()).isFalse();

    tierlock.close();

    assertThat(opened.isClosed()).isTrue();
  }

  @Test
  void remoteMode_publishesWithACommitIdAfterTheSelfCheck() {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).commitIds(() -> "commit-7").build()) {
      TransactionResult result = tierlock.transaction().run(tx -> tx.repository().writeEntry(NAME, entry("1")));

      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(result.attempts()).isEqualTo(1);
      ObjectKey key = TEAM.key(TierPath.LOCKFILE);
      assertThat(memory.stat(key).orElseThrow().metadata().get(ObjectMetadata.COMMIT_ID)).contains("commit-7");
      assertThat(memory.writes()).anyMatch(w -> w.startsWith("WRITE .tierlock-selfcheck/"));
      assertThat(memory.writes()).filteredOn(w -> w.startsWith("WRITE " + key))
          .containsExactly("WRITE " + key + " " + WriteCondition.mustNotExist());
      assertThat(memory.keys()).containsExactly(key);
    }
  }

  @Test
  void directMode_editsTheSharedFileInPlace_withoutPublishingOrPendingRecords() throws Exception {
    DirectMemoryDatastore direct = new DirectMemoryDatastore(dir.resolve("shared"));
    Path checkout = Files.createDirectories(dir.resolve("checkout"));
    try (Tierlock tierlock = builder(direct).checkout(checkout).build()) {
      assertThat(tierlock.mode()).isEqualTo(SyncMode.DIRECT);
      Path shared = direct.pathOf(TEAM.key(TierPath.LOCKFILE));

      TransactionResult put = tierlock.transaction().run(tx -> tx.repository().writeEntry(NAME, entry("1")));
      TransactionResult same = tierlock.transaction().run(tx -> tx.repository().writeEntry(NAME, entry("1")));

      assertThat(put.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(put.delta()).isEqualTo(LockfileDelta.upsert(NAME, entry("1")));
      assertThat(same.status()).isEqualTo(TransactionStatus.NO_CHANGE);
      assertThat(LockfileCodec.decode(Files.readAllBytes(shared), "shared").entry(NAME)).contains(entry("1"));
      assertThat(tierlock.syncPort().lockPath()).startsWith(direct.lockDirectory());
      assertThat(tierlock.pendingChanges().path()).doesNotExist();
      assertThat(direct.writes()).allMatch(w -> w.contains("team/.datastore.lock"), "only the global lock is written");
      assertThat(tierlock.transaction().refresh().status()).isEqualTo(TransactionStatus.NO_CHANGE);
    }
  }

  @Test
  void directMode_deletesTierPathsThroughTheDatastore() {
    DirectMemoryDatastore direct = new DirectMemoryDatastore(dir.resolve("shared"));
    TierPath archive = TierPath.of("config/pulled-archives/@s/x/" + "a".repeat(64) + ".tar.gz");
    direct.write(TEAM.key(archive), ObjectBody.of(new byte[] {1}), WriteCondition.none(), ObjectMetadata.EMPTY);
    try (Tierlock tierlock = builder(direct).build()) {
      TransactionResult result = tierlock.transaction().run(tx -> tx.deleteAfterPublish(archive));

      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(direct.stat(TEAM.key(archive))).isEmpty();
    }
  }

  @Test
  void directMode_aCorruptSharedFile_failsWithItsPositionAndIsKeptAsItIs() throws Exception {
    DirectMemoryDatastore direct = new DirectMemoryDatastore(dir.resolve("shared"));
    Path shared = direct.pathOf(TEAM.key(TierPath.LOCKFILE));
    Files.createDirectories(shared.getParent());
    Files.writeString(shared, "{}");
    try (Tierlock tierlock = builder(direct).build()) {
      Files.writeString(shared, "{oops");

      assertThatThrownBy(() -> tierlock.transaction().run(tx -> tx.repository().writeEntry(NAME, entry("1"))))
          .isInstanceOf(LockfileFormatException.class)
          .hasMessageStartingWith("Cannot read lockfile " + shared)
          .hasMessageContaining("line 1")
          .extracting(e -> ((LockfileFormatException) e).code()).isEqualTo("lockfile_format");
      assertThat(Files.readString(shared)).isEqualTo("{oops");
    }
  }

  @Test
  void remoteMode_theSelfCheck_runsOncePerProcessAndIsRememberedInTheCheckout() throws Exception {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock first = builder(memory).build()) {
      first.transaction().run(tx -> tx.repository().writeEntry(NAME, entry("1")));
      assertThat(first.stateDirectory().resolve(SelfCheckMarker.FILE_NAME)).exists();
    }
    long probes = memory.writes().stream().filter(w -> w.startsWith("WRITE .tierlock-selfcheck/")).count();
    assertThat(probes).isEqualTo(4);
    Path other = Files.createDirectories(dir.resolve("other"));

    try (Tierlock again = builder(memory).build(); Tierlock elsewhere = builder(memory).checkout(other).build()) {
      again.transaction().run(tx -> tx.repository().writeEntry(NAME, entry("2")));
      elsewhere.transaction().run(tx -> tx.repository().writeEntry(NAME, entry("3")));
      assertThat(elsewhere.stateDirectory().resolve(SelfCheckMarker.FILE_NAME)).as("recorded for later processes").exists();
    }

    assertThat(memory.writes().stream().filter(w -> w.startsWith("WRITE .tierlock-selfcheck/")).count()).isEqualTo(probes);
  }

  @Test
  void remoteMode_aFreshMarkerInTheCheckout_skipsTheSelfCheck() {
    MemoryDatastore memory = new MemoryDatastore();
    new SelfCheckMarker(dir.resolve(".swamp"), clock).record(memory.describe());

    try (Tierlock tierlock = builder(memory).build()) {
      tierlock.transaction().run(tx -> tx.repository().writeEntry(NAME, entry("1")));
    }

    assertThat(memory.writes()).noneMatch(w -> w.contains(".tierlock-selfcheck/"));
  }

  @Test
  void remoteMode_defaultCommitIds_areSixteenRandomHexDigits() {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).build()) {
      tierlock.transaction().run(tx -> tx.repository().writeEntry(NAME, entry("1")));
      String first = memory.stat(TEAM.key(TierPath.LOCKFILE)).orElseThrow().metadata().get(ObjectMetadata.COMMIT_ID)
          .orElseThrow();
      tierlock.transaction().run(tx -> tx.repository().writeEntry(NAME, entry("2")));
      ObjectMetadata second = memory.stat(TEAM.key(TierPath.LOCKFILE)).orElseThrow().metadata();

      assertThat(first).matches("[0-9a-f]{16}");
      assertThat(second.get(ObjectMetadata.COMMIT_ID)).hasValueSatisfying(id -> assertThat(id).matches("[0-9a-f]{16}")
          .isNotEqualTo(first));
      assertThat(second.get(LockfileHead.HISTORY)).contains(first);
    }
  }

  @Test
  void remoteMode_anUndecodableCache_opensAsEmpty() throws Exception {
    MemoryDatastore memory = new MemoryDatastore();
    Path cache = dir.resolve(".swamp/tier-cache/team/config/upstream_extensions.json");
    Files.createDirectories(cache.getParent());
    Files.writeString(cache, "{oops");

    try (Tierlock tierlock = builder(memory).build()) {
      assertThat(tierlock.repository().snapshot().isEmpty()).isTrue();
      assertThat(tierlock.transaction().run(tx -> tx.repository().writeEntry(NAME, entry("1"))).status())
          .isEqualTo(TransactionStatus.PUBLISHED);
    }
  }

  @Test
  void directMode_aCorruptSharedFileAtBuild_isRefusedAndKeptAsItIs() throws Exception {
    DirectMemoryDatastore direct = new DirectMemoryDatastore(dir.resolve("shared"));
    Path shared = direct.pathOf(TEAM.key(TierPath.LOCKFILE));
    Files.createDirectories(shared.getParent());
    Files.writeString(shared, "{oops");

    assertThatThrownBy(() -> builder(direct).build())
        .isInstanceOf(LockfileFormatException.class)
        .hasMessageStartingWith("Cannot read lockfile " + shared)
        .extracting(e -> ((LockfileFormatException) e).code()).isEqualTo("lockfile_format");
    assertThat(Files.readString(shared)).isEqualTo("{oops");
  }
}
