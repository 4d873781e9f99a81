package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileFormatException;
import dev.tierlock.LockfileHead;
import dev.tierlock.ManagedLockfileSyncPort;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.PublishOutcome;
import dev.tierlock.PublishRequest;
import dev.tierlock.SyncMode;
import dev.tierlock.TierPath;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link ManagedLockfileSyncPort#remote} over any datastore: hydrate is one
 * conditional read of exactly the lockfile's key, bound to the namespace once, decoded before the
 * cache is replaced, and returns the version with the commit lineage it carries; publish writes
 * exactly the content it is given (never the local file) under its precondition, with a commit id
 * and the parent's lineage in the metadata, then the deletions; an unanswered write is resolved by
 * reading the lineage back: landed (even under a later version), not landed, or still unknown. A
 * datastore module subclasses it in a few lines:
 *
 * <pre>{@code
 * class GcsSyncPortTest extends SyncPortContract {
 *   @Override protected Datastore createDatastore() { return GcsDatastore.of(storage, freshBucket()); }
 * }
 * }</pre>
 *
 * <p>Every test method is final; the store is wrapped in a {@link FaultyDatastore} for faults and
 * the operation log. Not thread-safe (JUnit runs one test per instance).
 */
public abstract class SyncPortContract extends SyncPortContractSupport {

  /** For subclasses. */
  protected SyncPortContract() {}

  /**
   * Returns a fresh, empty datastore; called before each test and closed after it.
   *
   * @throws Exception if the store cannot be created (the test then fails)
   */
  @Override
  protected abstract Datastore createDatastore() throws Exception;

  @Test
  final void paths_bindTheNamespaceOnce() {
    assertThat(port().mode()).isEqualTo(SyncMode.REMOTE);
    assertThat(port().lockfilePath()).isEqualTo(temp.resolve("cache/team/config/upstream_extensions.json").toAbsolutePath());
    assertThat(port().lockPath().startsWith(temp.resolve("state").toAbsolutePath())).as("lock in the state directory").isTrue();
    assertThat(port().describe()).endsWith("team/config/upstream_extensions.json");
  }

  @Test
  final void hydrate_whenAbsent_returnsEmptyAndRemovesTheCachedCopy() throws IOException {
    writeLocal(TierPath.LOCKFILE, encode("@s/stale"));

    assertThat(port().hydrate()).isEmpty();

    assertThat(port().lockfilePath()).doesNotExist();
    assertThat(port().lastSeen()).isEmpty();
    assertThat(store().log().entries()).singleElement().satisfies(e -> {
      assertThat(e.operation()).isEqualTo(DatastoreOperation.READ);
      assertThat(e.target()).isEqualTo(LOCKFILE_KEY.value());
    });
  }

  @Test
  final void hydrate_writesTheCachedCopyAndReturnsTheVersion() throws IOException {
    byte[] remote = encode("@s/a");
    ObjectVersion version = plant(remote);

    assertThat(port().hydrate()).contains(new LockfileHead(version, List.of()));

    assertThat(local()).isEqualTo(remote);
    assertThat(port().lastSeen()).contains(lockfile("@s/a"));
    assertThat(store().log().entries()).extracting(LoggedOperation::target).containsExactly(LOCKFILE_KEY.value());
  }

  @Test
  final void hydrate_returnsTheCommitLineageTheVersionCarries_alsoWhenNotModified() {
    ObjectVersion version = plant(encode("@s/a"), commitOf("c3", "c2 c1"));

    assertThat(port().hydrate()).contains(new LockfileHead(version, List.of("c3", "c2", "c1")));
    assertThat(port().hydrate()).contains(new LockfileHead(version, List.of("c3", "c2", "c1")));

    assertThat(store().log().entries()).extracting(LoggedOperation::condition)
        .containsExactly("always", "ifNoneMatch(" + version.value() + ")");
  }

  @Test
  final void hydrate_again_isConditionalOnTheVersionSeen() {
    ObjectVersion version = plant(encode("@s/a"));
    port().hydrate();
    store().log().clear();

    assertThat(port().hydrate()).map(LockfileHead::version).contains(version);

    assertThat(store().log().entries()).singleElement()
        .satisfies(e -> assertThat(e.condition()).isEqualTo("ifNoneMatch(" + version.value() + ")"));
  }

  @Test
  final void hydrate_afterTheCacheWasChanged_readsInFullAndRestoresIt() throws IOException {
    byte[] remote = encode("@s/a");
    plant(remote);
    port().hydrate();
    Files.write(port().lockfilePath(), encode("@s/a", "@s/local"));
    store().log().clear();

    port().hydrate();

    assertThat(store().log().entries()).singleElement().satisfies(e -> assertThat(e.condition()).isEqualTo("always"));
    assertThat(local()).isEqualTo(remote);
  }

  @Test
  final void hydrate_afterAPeerPublished_replacesTheCachedCopy() throws IOException {
    plant(encode("@s/a"));
    port().hydrate();
    byte[] newer = encode("@s/a", "@s/b");
    ObjectVersion version = plant(newer);

    assertThat(port().hydrate()).map(LockfileHead::version).contains(version);

    assertThat(local()).isEqualTo(newer);
    assertThat(port().lastSeen()).contains(lockfile("@s/a", "@s/b"));
  }

  @Test
  final void hydrate_ofACorruptLockfile_failsNamingThePositionAndKeepsTheCache() throws IOException {
    byte[] good = encode("@s/a");
    plant(good);
    port().hydrate();
    plant("{\n  \"@s/a\": [\n".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> port().hydrate())
        .isInstanceOf(LockfileFormatException.class)
        .hasMessageStartingWith("Cannot read lockfile " + port().describe() + ": ")
        .hasMessageContaining("(at line 2, column 11)")
        .extracting(e -> ((LockfileFormatException) e).code()).isEqualTo("lockfile_format");
    assertThat(local()).isEqualTo(good);
  }

  @Test
  final void hydrate_thatFails_keepsTheCache() throws IOException {
    byte[] good = encode("@s/a");
    plant(good);
    port().hydrate();
    plant(encode("@s/b"));
    store().faults().failNext(DatastoreOperation.READ, 1, Fault.UNAVAILABLE);

    assertThatThrownBy(() -> port().hydrate())
        .isInstanceOf(DatastoreUnavailableException.class)
        .extracting(e -> ((DatastoreUnavailableException) e).code()).isEqualTo("datastore_unavailable");
    assertThat(local()).isEqualTo(good);
  }

  @Test
  final void publish_writesTheGivenContent_conditionalOnTheParent_withItsCommitAndLineage() throws IOException {
    plant(encode("@s/a"), commitOf("c1", ""));
    LockfileHead parent = port().hydrate().orElseThrow();
    writeLocal(TierPath.LOCKFILE, "{ the local file is never published".getBytes(StandardCharsets.UTF_8));
    Files.writeString(port().lockfilePath().resolveSibling(".lock"), "never uploaded");
    store().log().clear();

    PublishOutcome outcome = port().publish(PublishRequest.lockfileOn(parent, lockfile("@s/a", "@s/b"), "c2"));

    assertThat(outcome).isInstanceOfSatisfying(PublishOutcome.Published.class, p -> {
      assertThat(p.commitId()).contains("c2");
      assertThat(p.lockfileVersion()).isEqualTo(store().delegate().stat(LOCKFILE_KEY).map(o -> o.version()));
    });
    assertThat(writes()).singleElement().satisfies(e -> {
      assertThat(e.target()).isEqualTo(LOCKFILE_KEY.value());
      assertThat(e.condition()).isEqualTo("mustMatch(" + parent.version().value() + ")");
    });
    assertThat(sharedMetadata().get(ObjectMetadata.COMMIT_ID)).contains("c2");
    assertThat(sharedMetadata().get(LockfileHead.HISTORY)).contains("c1");
    assertThat(TestCheckout.sharedLockfile(store().delegate(), NAMESPACE)).isEqualTo(lockfile("@s/a", "@s/b"));
    assertThat(local()).as("the cache holds what was published").isEqualTo(encode("@s/a", "@s/b"));
    store().log().clear();
    assertThat(port().hydrate()).map(LockfileHead::lineage).contains(List.of("c2", "c1"));
    assertThat(store().log().entries()).singleElement().satisfies(e -> assertThat(e.condition()).startsWith("ifNoneMatch("));
  }

  @Test
  final void publish_keepsAtMostTwelveIdsOfLineage_withinTheMetadataLimit() {
    List<String> shortIds = new java.util.ArrayList<>();
    for (int i = 20; i > 0; i--) {
      shortIds.add("c" + i);
    }
    ObjectVersion version = plant(encode("@s/a"));

    port().publish(PublishRequest.lockfileOn(new LockfileHead(version, shortIds), lockfile("@s/b"), "c21"));

    assertThat(sharedMetadata().get(LockfileHead.HISTORY)).contains(String.join(" ", shortIds.subList(0, 12)));
    List<String> longIds = List.of("a".repeat(64), "b".repeat(64), "c".repeat(64), "d".repeat(64), "e".repeat(64));
    ObjectVersion next = store().delegate().stat(LOCKFILE_KEY).orElseThrow().version();

    port().publish(PublishRequest.lockfileOn(new LockfileHead(next, longIds), lockfile("@s/c"), "c22"));

    assertThat(sharedMetadata().get(LockfileHead.HISTORY)).contains(String.join(" ", longIds.subList(0, 3)));
  }

  @Test
  final void publish_overAStaleVersion_isAConflictAndChangesNothing() throws IOException {
    plant(encode("@s/a"));
    LockfileHead hydrated = port().hydrate().orElseThrow();
    plant(encode("@s/a", "@s/peer"));

    assertThat(port().publish(PublishRequest.lockfileOn(hydrated, lockfile("@s/a", "@s/mine"), commit())))
        .isEqualTo(PublishOutcome.Conflict.INSTANCE);

    assertThat(TestCheckout.sharedLockfile(store().delegate(), NAMESPACE).names())
        .extracting(ExtensionName::value).containsExactly("@s/a", "@s/peer");
  }

  @Test
  final void publish_whenItWasAbsent_isCreateOnly() {
    assertThat(port().hydrate()).isEmpty();
    plant(encode("@s/peer"));

    assertThat(port().publish(PublishRequest.newLockfile(lockfile("@s/mine"), commit())))
        .isEqualTo(PublishOutcome.Conflict.INSTANCE);

    assertThat(writes()).last().satisfies(e -> assertThat(e.condition()).isEqualTo("mustNotExist"));
    assertThat(TestCheckout.sharedLockfile(store().delegate(), NAMESPACE).names())
        .extracting(ExtensionName::value).containsExactly("@s/peer");
  }

  @Test
  final void publish_aLostResponse_isResolvedByReadingTheCommitIdBack() {
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE);

    PublishOutcome outcome = port().publish(PublishRequest.newLockfile(lockfile("@s/mine"), "c1"));

    Optional<ObjectVersion> now = store().delegate().stat(LOCKFILE_KEY).map(o -> o.version());
    assertThat(outcome).isInstanceOfSatisfying(PublishOutcome.Published.class,
        p -> assertThat(p.lockfileVersion()).isEqualTo(now));
    assertThat(store().log().count(DatastoreOperation.STAT)).isEqualTo(1);
    assertThat(writes()).hasSize(1);
  }

  @Test
  final void publish_aLostResponseUnderALaterPeerVersion_landedByItsLineage() throws IOException {
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE);
    store().faults().beforeNext(DatastoreOperation.STAT, key -> key.equals(LOCKFILE_KEY),
        () -> plant(encode("@s/peer"), commitOf("peer-1", "c1")));

    PublishOutcome outcome = port().publish(PublishRequest.newLockfile(lockfile("@s/mine"), "c1"));

    assertThat(outcome).isInstanceOfSatisfying(PublishOutcome.Published.class, p -> {
      assertThat(p.commitId()).contains("c1");
      assertThat(p.lockfileVersion()).as("a later version is not ours").isEmpty();
    });
    store().log().clear();
    assertThat(port().hydrate()).map(LockfileHead::lineage).contains(List.of("peer-1", "c1"));
    assertThat(store().log().entries()).singleElement().satisfies(e -> assertThat(e.condition()).isEqualTo("always"));
    assertThat(local()).isEqualTo(encode("@s/peer"));
  }

  @Test
  final void publish_aLostResponseOvertakenByAVersionWithoutIt_staysUnknown() {
    plant(encode("@s/a"), commitOf("c1", ""));
    LockfileHead parent = port().hydrate().orElseThrow();
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.TIMEOUT_BEFORE_APPLY);
    store().faults().beforeNext(DatastoreOperation.STAT, key -> key.equals(LOCKFILE_KEY),
        () -> plant(encode("@s/peer"), commitOf("peer-1", "")));

    assertThatThrownBy(() -> port().publish(PublishRequest.lockfileOn(parent, lockfile("@s/a", "@s/mine"), "c2")))
        .isInstanceOf(OutcomeUnknownException.class)
        .extracting(e -> ((OutcomeUnknownException) e).code()).isEqualTo("outcome_unknown");
    assertThat(TestCheckout.sharedLockfile(store().delegate(), NAMESPACE)).isEqualTo(lockfile("@s/peer"));
  }

  @Test
  final void publish_aWriteThatNeverApplied_isAConflictAfterTheReadBack() {
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.TIMEOUT_BEFORE_APPLY);

    assertThat(port().publish(PublishRequest.newLockfile(lockfile("@s/mine"), commit())))
        .isEqualTo(PublishOutcome.Conflict.INSTANCE);

    assertThat(store().delegate().stat(LOCKFILE_KEY)).isEmpty();
  }

  @Test
  final void publish_aLostResponseWithAFailedReadBack_staysUnknown() {
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE)
        .failNext(DatastoreOperation.STAT, 1, Fault.UNAVAILABLE);

    assertThatThrownBy(() -> port().publish(PublishRequest.newLockfile(lockfile("@s/mine"), commit())))
        .isInstanceOf(OutcomeUnknownException.class)
        .satisfies(e -> assertThat(e.getSuppressed()).singleElement().isInstanceOf(DatastoreUnavailableException.class))
        .extracting(e -> ((OutcomeUnknownException) e).code()).isEqualTo("outcome_unknown");
  }

  @Test
  final void publish_deletesAfterTheLockfile() {
    store().delegate().write(NAMESPACE.key(ARCHIVE_A), ObjectBody.of(new byte[] {1}), WriteCondition.none(), ObjectMetadata.EMPTY);

    PublishOutcome outcome = port().publish(PublishRequest.newLockfile(lockfile("@s/b"), commit())
        .withDeletions(List.of(ARCHIVE_A)));

    assertThat(outcome).isInstanceOfSatisfying(PublishOutcome.Published.class, p -> assertThat(p.notDeleted()).isEmpty());
    assertThat(store().delegate().stat(NAMESPACE.key(ARCHIVE_A))).isEmpty();
    assertThat(store().log().entries()).extracting(LoggedOperation::operation).containsSubsequence(
        DatastoreOperation.WRITE, DatastoreOperation.STAT, DatastoreOperation.DELETE);
  }

  @Test
  final void internalFilesAndBadRequests_cannotEvenBeMade() {
    assertThatThrownBy(() -> TierPath.of("config/upstream_extensions.json.lock"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use tier path \"config/upstream_extensions.json.lock\": lock files never leave the checkout");
    assertThatThrownBy(() -> PublishRequest.pathsOnly().withDeletions(List.of(TierPath.LOCKFILE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot delete " + TierPath.LOCKFILE + " by a publish");
    assertThatThrownBy(() -> PublishRequest.newLockfile(Lockfile.EMPTY, "not an id"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use commit id \"not an id\": letters, digits and -, 1 to 64 characters");
    assertThat(writes()).isEmpty();
  }
}
