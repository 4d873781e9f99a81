package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.HISTORY;
import static dev.tierlock.testkit.TransactionFixture.LOCKFILE_KEY;
import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.utf8;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockfileFormatException;
import dev.tierlock.ManagedLockfileUnavailableException;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The fetch and publish of the shared lockfile as a transaction sees them on the store under test,
 * for {@link SyncPortContract}: observed through {@link dev.tierlock.Tierlock}, counted with a
 * {@link CountingDatastore} over the {@link FaultyDatastore} around the store. Not thread-safe: one
 * per test.
 */
final class SyncPortScenarios {

  /** The length of Tierlock's default commit ids (16 hex digits), which the lineage test's ids match. */
  static final int ID_LENGTH = 16;

  private final TransactionFixture f;
  private final Set<DatastoreFeature> features;
  private final CountingDatastore counted;

  SyncPortScenarios(TransactionFixture fixture, Set<DatastoreFeature> features) {
    this.f = fixture;
    this.features = features;
    this.counted = CountingDatastore.wrap(fixture.store());
  }

  private TestCheckout checkout(String name) {
    TestCheckout checkout = f.register(f.builder(name, counted).build());
    counted.reset();
    return checkout;
  }

  void theFirstFetch_readsInFull_andCachesTheExactBytes() {
    TestCheckout a = checkout("a");
    a.put("@s/x", "1");
    TestCheckout b = checkout("b");
    f.store().log().clear();

    TransactionResult result = b.transaction().refresh();

    assertThat(versions(result.lockfile())).containsExactly(entry("@s/x", "1"));
    assertThat(counted.counts()).containsEntry(DatastoreOperation.READ, 1L);
    assertThat(counted.total()).isEqualTo(1);
    assertThat(f.store().log().entries()).singleElement().satisfies(e -> {
      assertThat(e.target()).isEqualTo(LOCKFILE_KEY.value());
      assertThat(e.condition()).isEqualTo("always");
      assertThat(e.outcome()).isEqualTo("FOUND");
    });
    assertThat(b.cachePath()).hasBinaryContent(f.sharedBytes().orElseThrow());
  }

  void aWarmFetch_isOneConditionalRead_thatTransfersNoBody_alsoAfterARestart() {
    TestCheckout a = checkout("a");
    a.put("@s/x", "1");
    String version = f.sharedObject().orElseThrow().version().value();
    for (TestCheckout warm : List.of(a, f.reopen(a))) {
      counted.reset();
      f.store().log().clear();

      assertThat(versions(warm.transaction().refresh().lockfile())).containsExactly(entry("@s/x", "1"));

      assertThat(counted.counts()).containsEntry(DatastoreOperation.READ, 1L);
      assertThat(counted.total()).isEqualTo(1);
      assertThat(f.store().log().entries()).singleElement().satisfies(e -> {
        assertThat(e.condition()).isEqualTo("ifNoneMatch(" + version + ")");
        assertThat(e.outcome()).as("declared %s", features)
            .isEqualTo(features.contains(DatastoreFeature.NOT_MODIFIED_READS) ? "NOT_MODIFIED" : "FOUND");
      });
    }
  }

  void aFetchAfterAPeerPublished_readsTheNewBytes_andCachesThem() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    a.put("@s/x", "1");
    b.transaction().refresh();
    String seen = f.sharedObject().orElseThrow().version().value();
    a.put("@s/y", "1");
    f.store().log().clear();

    assertThat(versions(b.transaction().refresh().lockfile())).containsExactly(entry("@s/x", "1"), entry("@s/y", "1"));

    assertThat(f.store().log().entries()).singleElement().satisfies(e -> {
      assertThat(e.condition()).isEqualTo("ifNoneMatch(" + seen + ")");
      assertThat(e.outcome()).isEqualTo("FOUND");
    });
    assertThat(b.cachePath()).hasBinaryContent(f.sharedBytes().orElseThrow());
  }

  void aFetchOfAnAbsentLockfile_isEmpty_andForgetsTheCache() {
    TestCheckout a = checkout("a");
    a.put("@s/x", "1");
    assertThat(a.cachePath()).exists();
    f.created().delete(LOCKFILE_KEY, WriteCondition.none());

    TransactionResult result = a.transaction().refresh();

    assertThat(result.lockfile().isEmpty()).isTrue();
    assertThat(a.cachePath()).doesNotExist();
    assertThat(a.put("@s/y", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(f.store().log().entries(DatastoreOperation.WRITE)).filteredOn(e -> e.target().equals(LOCKFILE_KEY.value()))
        .last().satisfies(e -> assertThat(e.condition()).as("created again, create-only").isEqualTo("mustNotExist"));
    assertThat(versions(f.shared())).containsExactly(entry("@s/y", "1"));
  }

  void aDamagedCache_isNeverBelieved_butReadInFull() throws IOException {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    a.put("@s/x", "1");
    b.transaction().refresh();
    b.overwriteLocal(TransactionFixture.lockfile("@s/x", "@s/planted"));
    TestCheckout restarted = f.reopen(b);
    f.store().log().clear();

    TransactionResult copyChanged = restarted.transaction().refresh();

    assertThat(versions(copyChanged.lockfile())).containsExactly(entry("@s/x", "1"));
    assertThat(f.store().log().entries()).singleElement().satisfies(e -> assertThat(e.condition()).isEqualTo("always"));
    assertThat(restarted.cachePath()).hasBinaryContent(f.sharedBytes().orElseThrow());
    Files.writeString(restarted.tierlock().stateDirectory().resolve("lockfile-hydrated.json"), "{\"key\": 3");
    TestCheckout again = f.reopen(restarted);
    f.store().log().clear();

    assertThat(again.put("@s/y", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);

    assertThat(f.store().log().entries(DatastoreOperation.READ)).singleElement()
        .satisfies(e -> assertThat(e.condition()).as("a damaged record is not believed either").isEqualTo("always"));
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"), entry("@s/y", "1"));
  }

  void aFailedOrUnreadableFetch_keepsTheCache() {
    TestCheckout a = checkout("a");
    a.put("@s/x", "1");
    byte[] good = TransactionFixture.bytesOf(a.cachePath());
    f.store().faults().failNext(DatastoreOperation.READ, isLockfile(), 1, Fault.UNAVAILABLE);

    assertThatThrownBy(() -> a.transaction().refresh())
        .isInstanceOf(ManagedLockfileUnavailableException.class)
        .hasMessageStartingWith("Cannot fetch the shared lockfile from " + a.transaction().describe() + ": ");
    assertThat(a.cachePath()).hasBinaryContent(good);
    f.plant(utf8("{\n  \"@s/a\": [\n"));

    assertThatThrownBy(() -> a.transaction().refresh())
        .isInstanceOf(LockfileFormatException.class)
        .hasMessageStartingWith("Cannot read lockfile " + a.transaction().describe() + ": ")
        .hasMessageContaining("(at line 2, column 11)");
    assertThat(a.cachePath()).hasBinaryContent(good);
  }

  void aPublish_isConditionalOnTheVersionFetched_andCarriesItsCommitIdAndTheLineage() {
    TestCheckout a = f.register(f.builder("a", counted).commitIds(ids("c")).build());
    f.store().log().clear();

    a.put("@s/x", "1");
    StoredObject first = f.sharedObject().orElseThrow();
    a.put("@s/y", "1");
    a.put("@s/z", "1");

    assertThat(f.store().log().entries(DatastoreOperation.WRITE)).filteredOn(e -> e.target().equals(LOCKFILE_KEY.value()))
        .extracting(LoggedOperation::condition).first().isEqualTo("mustNotExist");
    assertThat(f.store().log().entries(DatastoreOperation.WRITE)).filteredOn(e -> e.target().equals(LOCKFILE_KEY.value()))
        .extracting(LoggedOperation::condition).element(1).isEqualTo("mustMatch(" + first.version().value() + ")");
    assertThat(first.metadata().get(ObjectMetadata.COMMIT_ID)).contains(commit("c", 1));
    assertThat(first.metadata().get(HISTORY)).as("the first commit has no parent").isEmpty();
    assertThat(f.sharedLineage()).containsExactly(commit("c", 3), commit("c", 2), commit("c", 1));
  }

  void aLongChainOfCommits_keepsAsMuchLineageAsTheStoresMetadataHolds() {
    int capacity = f.store().maxMetadataBytes();
    int commits = capacity / (ID_LENGTH + 1) + 8;
    TestCheckout a = f.register(f.builder("a").commitIds(ids("")).build());
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= commits; i++) {
      a.put("@s/chain", Integer.toString(i));
      ids.add(0, commit("", i));
    }

    List<String> lineage = f.sharedLineage();
    ObjectMetadata metadata = f.sharedObject().orElseThrow().metadata();

    assertThat(lineage.size()).as("the chain is longer than the lineage").isLessThan(commits);
    assertThat(lineage).as("the newest commits, newest first, none skipped").isEqualTo(ids.subList(0, lineage.size()));
    assertThat(metadata.byteSize()).as("what the lineage takes of the store's %s bytes", capacity)
        .isLessThanOrEqualTo(capacity).isGreaterThan(capacity - 2 * 64);
    System.out.println("Lineage kept by " + f.created().describe() + ": " + lineage.size() + " commit ids of " + ID_LENGTH
        + " characters, " + metadata.byteSize() + " of " + capacity + " metadata bytes, after " + commits + " commits");
  }

  void aLostAnswerWithAWorkingReadBack_resolvesToLanded_withOneWrite() {
    TestCheckout a = checkout("a");
    a.put("@s/x", "1");
    counted.reset();
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.LOSE_RESPONSE);

    TransactionResult result = a.put("@s/y", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(1);
    boolean stats = f.warmFetch() == DatastoreOperation.STAT;
    assertThat(counted.counts()).as("lock, fetch, the one write, its read-back, unlock")
        .containsEntry(DatastoreOperation.WRITE, 2L).containsEntry(DatastoreOperation.READ, stats ? 0L : 1L)
        .containsEntry(DatastoreOperation.STAT, stats ? 2L : 1L).containsEntry(DatastoreOperation.DELETE, 1L);
    assertThat(counted.total()).isEqualTo(5);
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"), entry("@s/y", "1"));
  }

  void aLostAnswerOvertakenByAnotherToolsWrite_isAnUnknownOutcome_untilReapplied() {
    TestCheckout a = checkout("a");
    a.put("@s/x", "1");
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.TIMEOUT_BEFORE_APPLY);
    f.store().faults().beforeNext(DatastoreOperation.STAT, isLockfile(),
        () -> f.plant(utf8("{\n  \"@other/tool\": {\n    \"version\": \"1\",\n    \"pulledAt\": \"2025-01-01T00:00:00.000Z\"\n"
            + "  },\n  \"@s/x\": {\n    \"version\": \"1\",\n    \"pulledAt\": \"2026-01-01T00:00:00.000Z\"\n  }\n}\n")));

    PendingScenarios.assertBlocked(() -> a.put("@s/y", "1"), a, PendingChange.State.OUTCOME_UNKNOWN, "set @s/y 1")
        .hasMessageContaining(", written without a commit id) without a lineage that shows whether it landed");
    TransactionResult reapplied = a.transaction().reapplyPending();

    assertThat(reapplied.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).containsExactly(entry("@other/tool", "1"), entry("@s/x", "1"), entry("@s/y", "1"));
  }

  void aLostAnswerOnAnotherToolsVersion_isProvenAbsentOnlyWhereVersionsNeverRepeat() {
    f.plant(TransactionFixture.encode("@other/tool"));
    TestCheckout a = checkout("a");
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.TIMEOUT_BEFORE_APPLY);

    if (f.store().versionsRepeat()) {
      PendingScenarios.assertBlocked(() -> a.put("@s/y", "1"), a, PendingChange.State.OUTCOME_UNKNOWN, "set @s/y 1");
      assertThat(a.transaction().reapplyPending().status()).isEqualTo(TransactionStatus.PUBLISHED);
    } else {
      TransactionResult result = a.put("@s/y", "1");
      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(result.attempts()).isEqualTo(2);
    }
    assertThat(versions(f.shared())).containsExactly(entry("@other/tool", "1"), entry("@s/y", "1"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  void aWriteOfAnotherTool_startsANewLineage() {
    TestCheckout a = f.register(f.builder("a").commitIds(ids("t")).build());
    a.put("@s/x", "1");
    f.plant(TransactionFixture.encode("@s/x", "@other/tool"));

    a.put("@s/y", "1");

    assertThat(f.sharedLineage()).as("the other tool's version carries no commit").containsExactly(commit("t", 2));
    assertThat(f.shared().names()).contains(name("@other/tool"), name("@s/y"));
  }

  /** Returns commit ids {@code <prefix><n>} padded with zeros to {@link #ID_LENGTH} characters, from 1. */
  private static Supplier<String> ids(String prefix) {
    AtomicLong next = new AtomicLong();
    return () -> commit(prefix, next.incrementAndGet());
  }

  private static String commit(String prefix, long n) {
    String digits = Long.toString(n);
    return prefix + "0".repeat(ID_LENGTH - prefix.length() - digits.length()) + digits;
  }
}
