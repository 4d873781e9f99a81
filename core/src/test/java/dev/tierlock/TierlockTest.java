package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TierlockTest {

  private static final ExtensionName NAME = ExtensionName.of("@s/x");
  private static final ExtensionName OTHER = ExtensionName.of("@s/y");
  private static final Namespace TEAM = Namespace.of("team");
  private static final ObjectKey KEY = TEAM.key(TierPath.LOCKFILE);

  @TempDir Path dir;

  private final ManualClock clock = ManualClock.create();

  @AfterEach
  void forgetVerdicts() {
    SelfCheckedDatastore.forgetProcessVerdicts();
  }

  private Tierlock.Builder builder(dev.tierlock.spi.Datastore store) {
    return Tierlock.builder().datastore(store).checkout(dir).namespace(TEAM).environment(environment());
  }

  private Environment environment() {
    return Environment.system().withClock(clock).withSleeper(clock.sleeper()).withRandom(new SplittableRandom(1))
        .withHeartbeats((name, interval, beat) -> () -> { });
  }

  private static LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, "2026-01-01T00:00:00.000Z").build();
  }

  private static byte[] sharedBytes(MemoryDatastore store) {
    return ((ReadResult.Found) store.read(KEY, ReadCondition.always(), 1 << 24)).bytes();
  }

  private List<Path> stateFiles(Tierlock tierlock) throws Exception {
    try (Stream<Path> files = Files.walk(tierlock.stateDirectory())) {
      return files.filter(Files::isRegularFile).toList();
    }
  }

  @Test
  void build_usesTheDefaultDirectories() {
    try (Tierlock tierlock = builder(new MemoryDatastore()).build()) {
      assertThat(tierlock.checkoutDirectory()).isEqualTo(dir.toAbsolutePath());
      assertThat(tierlock.stateDirectory()).isEqualTo(dir.resolve(".swamp")).isDirectory();
      assertThat(tierlock.cacheDirectory()).isEqualTo(dir.resolve(".swamp").resolve("tier-cache"));
      assertThat(tierlock.namespace()).isEqualTo(TEAM);
      assertThat(tierlock.transaction().describe()).endsWith(" team/config/upstream_extensions.json");
    }
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
  void run_publishesTheChangeAsAValue_withACommitId_afterTheSelfCheck() {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).environment(environment().withCommitIds(() -> "commit-7")).build()) {
      TransactionResult result = tierlock.transaction().run(tx -> tx.put(NAME, entry("1")));

      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(result.delta()).isEqualTo(LockfileDelta.upsert(NAME, entry("1")));
      assertThat(result.attempts()).isEqualTo(1);
      assertThat(result.lockfile().entry(NAME)).contains(entry("1"));
      assertThat(memory.stat(KEY).orElseThrow().metadata().get(ObjectMetadata.COMMIT_ID)).contains("commit-7");
      assertThat(memory.writes()).anyMatch(w -> w.startsWith("WRITE team/.tierlock-selfcheck/probe-"));
      assertThat(memory.writes()).filteredOn(w -> w.startsWith("WRITE " + KEY))
          .containsExactly("WRITE " + KEY + " " + WriteCondition.mustNotExist());
      assertThat(memory.keys()).containsExactly(ObjectKey.of("team/.tierlock-selfcheck/verdict"), KEY);
      assertThat(tierlock.transaction().pending()).isEmpty();
    }
  }

  @Test
  void run_aChangeThatThrows_publishesNothing_keepsNothing_andLeavesTheCacheAsItWas() throws Exception {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).build()) {
      tierlock.transaction().run(tx -> tx.put(NAME, entry("1")));
      byte[] before = sharedBytes(memory);
      Path cache = tierlock.cacheDirectory().resolve("team").resolve(TierPath.LOCKFILE.value());
      byte[] cached = Files.readAllBytes(cache);
      IllegalStateException boom = new IllegalStateException("boom");

      assertThatThrownBy(() -> tierlock.transaction().run(tx -> {
        tx.put(OTHER, entry("1"));
        tx.remove(NAME);
        throw boom;
      })).isSameAs(boom);

      assertThat(sharedBytes(memory)).isEqualTo(before);
      assertThat(Files.readAllBytes(cache)).isEqualTo(cached);
      assertThat(tierlock.transaction().pending()).isEmpty();
    }
  }

  @Test
  void run_aPutOfTheValueAlreadyThere_isNoChange_andWritesNoLockfile() {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).build()) {
      tierlock.transaction().run(tx -> tx.put(NAME, entry("1")));
      int writes = (int) memory.writes().stream().filter(w -> w.startsWith("WRITE " + KEY)).count();

      TransactionResult same = tierlock.transaction().run(tx -> tx.put(NAME, entry("1")));
      TransactionResult undone = tierlock.transaction().run(tx -> {
        tx.put(OTHER, entry("1"));
        tx.remove(OTHER);
      });

      assertThat(same.status()).isEqualTo(TransactionStatus.NO_CHANGE);
      assertThat(undone.status()).isEqualTo(TransactionStatus.NO_CHANGE);
      assertThat(memory.writes().stream().filter(w -> w.startsWith("WRITE " + KEY)).count()).isEqualTo(writes);
    }
  }

  @Test
  void run_aNestedChangeThatThrows_undoesOnlyItsOwnEdits() {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).build()) {
      TransactionResult result = tierlock.transaction().run(tx -> {
        tx.put(NAME, entry("1"));
        try {
          tx.run(inner -> {
            inner.put(OTHER, entry("1"));
            throw new IllegalArgumentException("nested");
          });
        } catch (IllegalArgumentException expected) {
          // the outer change goes on
        }
        assertThat(tx.entry(OTHER)).isEmpty();
      });

      assertThat(result.delta()).isEqualTo(LockfileDelta.upsert(NAME, entry("1")));
      assertThat(tierlock.snapshot().names()).containsExactly(NAME);
    }
  }

  @Test
  void aContext_cannotBeUsedAfterItsChange_norFromAnotherThread() throws Exception {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).build()) {
      AtomicReference<TransactionContext> escaped = new AtomicReference<>();
      AtomicReference<Throwable> fromThread = new AtomicReference<>();
      tierlock.transaction().run(tx -> {
        escaped.set(tx);
        Thread other = new Thread(() -> {
          try {
            tx.put(OTHER, entry("1"));
          } catch (Throwable t) {
            fromThread.set(t);
          }
        });
        other.start();
        try {
          other.join();
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
        tx.put(NAME, entry("1"));
      });

      assertThat(fromThread.get()).isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("Cannot set entry @s/y from thread ");
      assertThatThrownBy(() -> escaped.get().put(OTHER, entry("1")))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot set entry @s/y: the transaction's change has returned");
      assertThat(tierlock.snapshot().names()).containsExactly(NAME);
    }
  }

  @Test
  void snapshot_readsTheSharedLockfile_withNoLockAndNoWrite() throws Exception {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock writer = builder(memory).build()) {
      writer.transaction().run(tx -> tx.put(NAME, entry("1")));
    }
    Path reader = dir.resolve("reader");
    try (Tierlock tierlock = builder(memory).checkout(reader).build()) {
      int calls = memory.calls().size();
      List<Path> before = stateFiles(tierlock);

      Lockfile snapshot = tierlock.snapshot();

      assertThat(snapshot.entry(NAME)).contains(entry("1"));
      assertThat(memory.calls().subList(calls, memory.calls().size())).containsExactly("READ " + KEY);
      assertThat(stateFiles(tierlock)).isEqualTo(before);
    }
  }

  @Test
  void run_onAStoreThatIgnoresPreconditions_failsAsUnsafe_andWritesNoLockfile() {
    MemoryDatastore memory = new MemoryDatastore();
    memory.ignorePreconditions();
    try (Tierlock tierlock = builder(memory).build()) {
      assertThatThrownBy(() -> tierlock.transaction().run(tx -> tx.put(NAME, entry("1"))))
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageContaining("does not honour write preconditions")
          .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");
      assertThatThrownBy(tierlock::checkDatastore).isInstanceOf(DatastoreUnsafeException.class);
      assertThat(memory.keys()).doesNotContain(KEY);
    }
  }

  @Test
  void run_onACorruptSharedLockfile_failsNamingItsPosition_andLeavesItAsItIs() {
    MemoryDatastore memory = new MemoryDatastore();
    memory.write(KEY, ObjectBody.of("{\"@s/x\": oops}".getBytes(StandardCharsets.UTF_8)), WriteCondition.none(),
        ObjectMetadata.EMPTY);
    try (Tierlock tierlock = builder(memory).build()) {
      assertThatThrownBy(() -> tierlock.transaction().run(tx -> tx.put(OTHER, entry("1"))))
          .isInstanceOf(LockfileFormatException.class)
          .hasMessageContaining("(at line 1, column ")
          .extracting(e -> ((LockfileFormatException) e).code()).isEqualTo("lockfile_format");
      assertThatThrownBy(tierlock::snapshot).isInstanceOf(LockfileFormatException.class);
      assertThat(new String(sharedBytes(memory), StandardCharsets.UTF_8)).isEqualTo("{\"@s/x\": oops}");
      assertThat(tierlock.transaction().pending()).isEmpty();
    }
  }

  @Test
  void aDamagedCache_isNeverBelieved_theNextFetchReadsInFull() throws Exception {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).build()) {
      tierlock.transaction().run(tx -> tx.put(NAME, entry("1")));
    }
    Path cache = dir.resolve(".swamp/tier-cache/team").resolve(TierPath.LOCKFILE.value());
    Files.writeString(cache, "{}\n");
    try (Tierlock tierlock = builder(memory).build()) {
      assertThat(tierlock.transaction().refresh().lockfile().entry(NAME)).contains(entry("1"));
      assertThat(Files.readAllBytes(cache)).isEqualTo(sharedBytes(memory));
    }
  }

  @Test
  void defaultCommitIds_areSixteenRandomHexDigits() {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).build()) {
      tierlock.transaction().run(tx -> tx.put(NAME, entry("1")));
      String first = memory.stat(KEY).orElseThrow().metadata().get(ObjectMetadata.COMMIT_ID).orElseThrow();
      tierlock.transaction().run(tx -> tx.put(NAME, entry("2")));
      String second = memory.stat(KEY).orElseThrow().metadata().get(ObjectMetadata.COMMIT_ID).orElseThrow();

      assertThat(first).matches("[0-9a-f]{16}");
      assertThat(second).matches("[0-9a-f]{16}").isNotEqualTo(first);
      assertThat(memory.stat(KEY).orElseThrow().metadata().get(LockfileHead.HISTORY)).contains(first);
    }
  }

  @Test
  void read_returnsTheVersion_keepsItCached_andSaysWhetherItChanged() {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).build()) {
      LockfileRead none = tierlock.read();
      assertThat(none.version()).isEmpty();
      assertThat(none.lockfile()).isEqualTo(Lockfile.EMPTY);
      assertThat(tierlock.cached()).isEmpty();

      tierlock.transaction().run(tx -> tx.put(NAME, entry("1")));
      String published = memory.stat(KEY).orElseThrow().version().value();
      assertThat(tierlock.cached()).map(LockfileRead::version).contains(java.util.Optional.of(published));

      LockfileRead first = tierlock.read();
      assertThat(first.version()).contains(published);
      assertThat(first.lockfile().entry(NAME)).contains(entry("1"));
      assertThat(first.changedSince(none.version())).isTrue();
      assertThat(first.changedSince(first.version())).isFalse();
      assertThat(tierlock.cached()).contains(first);
    }
  }

  @Test
  void tryWithPulledExtensionsLock_runsHoldingIt_andGivesUpAtOnceWhileAnotherHoldsIt() throws Exception {
    try (Tierlock tierlock = builder(new MemoryDatastore()).build();
        Tierlock other = builder(new MemoryDatastore()).build()) {
      java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CompletableFuture<java.util.Optional<String>> holder =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> tierlock.tryWithPulledExtensionsLock(() -> {
            inside.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            }
            return "held";
          }));
      assertThat(inside.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("the holder runs").isTrue();

      assertThat(other.tryWithPulledExtensionsLock(() -> "second")).as("held by the other instance").isEmpty();
      assertThat(tierlock.tryWithPulledExtensionsLock(() -> "third")).as("held by another thread").isEmpty();

      release.countDown();
      assertThat(holder.get(30, java.util.concurrent.TimeUnit.SECONDS)).contains("held");
      assertThat(other.tryWithPulledExtensionsLock(() -> "after")).as("released on return").contains("after");
      assertThatThrownBy(() -> tierlock.tryWithPulledExtensionsLock(() -> null))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("the action returned null");
      assertThat(other.tryWithPulledExtensionsLock(() -> "again")).as("released after a failure").contains("again");
    }
  }

  @Test
  void datastore_refusesWritesToAnyLockfileOrLock_andCannotBeClosedByItsUser() {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).build()) {
      dev.tierlock.spi.Datastore tier = tierlock.datastore();
      for (String key : List.of("team/config/upstream_extensions.json", "config/upstream_extensions.json",
          "other/config/upstream_extensions.json", "team/.datastore.lock", ".datastore.lock")) {
        assertThatThrownBy(() -> tier.write(ObjectKey.of(key), ObjectBody.of(new byte[] {1}),
            dev.tierlock.spi.WriteCondition.none(), ObjectMetadata.EMPTY))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("Cannot write " + key + " through Tierlock.datastore()");
        assertThatThrownBy(() -> tier.delete(ObjectKey.of(key), dev.tierlock.spi.WriteCondition.none()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("Cannot delete " + key + " through Tierlock.datastore()");
      }
      assertThat(memory.stat(ObjectKey.of("team/.datastore.lock"))).isEmpty();

      ObjectKey archive = ObjectKey.of("team/config/pulled-archives/@acme/tool/" + "a".repeat(64) + ".tar.gz");
      assertThat(tier.write(archive, ObjectBody.of(new byte[] {1}), dev.tierlock.spi.WriteCondition.mustNotExist(),
          ObjectMetadata.EMPTY)).isInstanceOf(dev.tierlock.spi.WriteResult.Written.class);
      tier.close();
      assertThat(tier.stat(archive)).as("still open: the Tierlock owns the store").isPresent();
    }
  }

  @Test
  void measure_countsTheRequestsAndBytesOfItsWorkOnThisThread_only() {
    MemoryDatastore memory = new MemoryDatastore();
    try (Tierlock tierlock = builder(memory).build()) {
      tierlock.transaction().run(tx -> tx.put(NAME, entry("1")));
      int size = sharedBytes(memory).length;
      try (Tierlock other = builder(memory).stateDirectory(dir.resolve("other-state")).build()) {
        Tierlock.Measured<Lockfile> full = Tierlock.measure(other::snapshot);
        assertThat(full.value().entry(NAME)).contains(entry("1"));
        assertThat(full.requests()).as("one read").isEqualTo(1);
        assertThat(full.bytes()).as("the whole lockfile").isEqualTo(size);

        Tierlock.Measured<LockfileRead> notModified = Tierlock.measure(tierlock::read);
        assertThat(notModified.requests()).isEqualTo(1);
        assertThat(notModified.bytes()).as("not modified: no body").isZero();

        Tierlock.Measured<Long> outer = Tierlock.measure(() -> {
          Tierlock.Measured<Lockfile> inner = Tierlock.measure(other::snapshot);
          other.snapshot();
          return inner.requests();
        });
        assertThat(outer.value()).as("the inner measurement has its own").isEqualTo(1);
        assertThat(outer.requests()).as("the outer one, suspended meanwhile, counts only its own").isEqualTo(1);

        Tierlock.Measured<Long> elsewhere = Tierlock.measure(() -> java.util.concurrent.CompletableFuture
            .supplyAsync(() -> other.snapshot().size() + 0L).join());
        assertThat(elsewhere.requests()).as("another thread's requests are not this work's").isZero();
      }
    }
  }
}
