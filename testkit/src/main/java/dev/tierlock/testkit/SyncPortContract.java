package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.DatastoreUnavailableException;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileCodec;
import dev.tierlock.LockfileEntry;
import dev.tierlock.LockfileFormatException;
import dev.tierlock.ManagedLockfileSyncPort;
import dev.tierlock.Namespace;
import dev.tierlock.OutcomeUnknownException;
import dev.tierlock.PublishOutcome;
import dev.tierlock.PublishRefusedException;
import dev.tierlock.PublishRequest;
import dev.tierlock.SyncMode;
import dev.tierlock.TierPath;
import dev.tierlock.ExtensionName;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of {@link ManagedLockfileSyncPort#remote} over any datastore: hydrate is one
 * conditional read of exactly the lockfile's key, bound to the namespace once, decoded before the
 * cache is replaced; publish uploads exactly the named tier paths, create-only ones first, the
 * lockfile under its precondition with a commit id, unanswered writes resolved by reading the
 * commit id back, and nothing that resolves outside the cache. A datastore module subclasses it in
 * a few lines:
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
public abstract class SyncPortContract {

  private static final Namespace NAMESPACE = Namespace.of("team");
  private static final ObjectKey LOCKFILE_KEY = NAMESPACE.key(TierPath.LOCKFILE);
  private static final TierPath ARCHIVE_A = TierPath.of("config/pulled-archives/@s/a/" + "a".repeat(64) + ".tar.gz");
  private static final TierPath ARCHIVE_B = TierPath.of("config/pulled-archives/@s/b/" + "b".repeat(64) + ".tar.gz");

  @TempDir Path temp;

  private @Nullable Datastore created;
  private @Nullable FaultyDatastore store;
  private @Nullable ManagedLockfileSyncPort port;
  private final AtomicInteger commits = new AtomicInteger();

  /** For subclasses. */
  protected SyncPortContract() {}

  /**
   * Returns a fresh, empty datastore; called before each test and closed after it.
   *
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  @BeforeEach
  final void openPort() throws Exception {
    Datastore fresh = createDatastore();
    created = fresh;
    FaultyDatastore faulty = FaultyDatastore.wrap(fresh);
    store = faulty;
    port = ManagedLockfileSyncPort.remote(faulty, NAMESPACE, temp.resolve("cache"), temp.resolve("state"),
        TestClock.create().sleeper(), () -> "commit-" + commits.incrementAndGet());
  }

  @AfterEach
  final void closeStore() {
    if (created != null) {
      created.close();
    }
  }

  private FaultyDatastore store() {
    if (store == null) {
      throw new IllegalStateException("Cannot use the store: the test has not started");
    }
    return store;
  }

  private ManagedLockfileSyncPort port() {
    if (port == null) {
      throw new IllegalStateException("Cannot use the port: the test has not started");
    }
    return port;
  }

  private static byte[] encode(String... names) {
    Lockfile lockfile = Lockfile.EMPTY;
    for (String name : names) {
      lockfile = lockfile.with(ExtensionName.of(name), LockfileEntry.builder("1", "2026-01-01T00:00:00.000Z").build());
    }
    return LockfileCodec.encode(lockfile);
  }

  /** Writes the shared lockfile behind the port's back, as a peer would; returns its version. */
  private ObjectVersion plant(byte[] bytes) {
    WriteResult result = store().delegate().write(LOCKFILE_KEY, ObjectBody.of(bytes), WriteCondition.none(), ObjectMetadata.EMPTY);
    return ((WriteResult.Written) result).version();
  }

  private byte[] local() throws IOException {
    return Files.readAllBytes(port().lockfilePath());
  }

  private void writeLocal(TierPath path, byte[] bytes) throws IOException {
    Path file = port().localPath(path);
    Files.createDirectories(file.getParent());
    Files.write(file, bytes);
  }

  private List<LoggedOperation> writes() {
    return store().log().entries(DatastoreOperation.WRITE);
  }

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
    assertThat(store().log().entries()).singleElement().satisfies(e -> {
      assertThat(e.operation()).isEqualTo(DatastoreOperation.READ);
      assertThat(e.target()).isEqualTo(LOCKFILE_KEY.value());
    });
  }

  @Test
  final void hydrate_writesTheCachedCopyAndReturnsTheVersion() throws IOException {
    byte[] remote = encode("@s/a");
    ObjectVersion version = plant(remote);

    assertThat(port().hydrate()).contains(version);

    assertThat(local()).isEqualTo(remote);
    assertThat(store().log().entries()).extracting(LoggedOperation::target).containsExactly(LOCKFILE_KEY.value());
  }

  @Test
  final void hydrate_again_isConditionalOnTheVersionSeen() {
    ObjectVersion version = plant(encode("@s/a"));
    port().hydrate();
    store().log().clear();

    assertThat(port().hydrate()).contains(version);

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

    assertThat(port().hydrate()).contains(version);

    assertThat(local()).isEqualTo(newer);
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
  final void publish_writesOnlyTheLockfile_conditionalOnTheVersion_withACommitId() throws IOException {
    ObjectVersion version = plant(encode("@s/a"));
    port().hydrate();
    byte[] changed = encode("@s/a", "@s/b");
    writeLocal(TierPath.LOCKFILE, changed);
    Files.writeString(port().lockfilePath().resolveSibling(".lock"), "never uploaded");
    store().log().clear();

    PublishOutcome outcome = port().publish(PublishRequest.lockfile(WriteCondition.mustMatch(version)));

    assertThat(outcome).isInstanceOfSatisfying(PublishOutcome.Published.class, p -> {
      assertThat(p.commitId()).isEqualTo("commit-1");
      assertThat(p.lockfileVersion()).isEqualTo(store().delegate().stat(LOCKFILE_KEY).map(o -> o.version()));
    });
    assertThat(writes()).singleElement().satisfies(e -> {
      assertThat(e.target()).isEqualTo(LOCKFILE_KEY.value());
      assertThat(e.condition()).isEqualTo("mustMatch(" + version.value() + ")");
    });
    assertThat(store().delegate().stat(LOCKFILE_KEY).orElseThrow().metadata().get(ObjectMetadata.COMMIT_ID)).contains("commit-1");
    assertThat(TestCheckout.sharedLockfile(store().delegate(), NAMESPACE).size()).isEqualTo(2);
    store().log().clear();
    port().hydrate();
    assertThat(store().log().entries()).singleElement().satisfies(e -> assertThat(e.condition()).startsWith("ifNoneMatch("));
  }

  @Test
  final void publish_overAStaleVersion_isAConflictAndChangesNothing() throws IOException {
    ObjectVersion hydrated = plant(encode("@s/a"));
    port().hydrate();
    byte[] peers = encode("@s/a", "@s/peer");
    plant(peers);
    writeLocal(TierPath.LOCKFILE, encode("@s/a", "@s/mine"));

    assertThat(port().publish(PublishRequest.lockfile(WriteCondition.mustMatch(hydrated))))
        .isEqualTo(PublishOutcome.Conflict.INSTANCE);

    assertThat(TestCheckout.sharedLockfile(store().delegate(), NAMESPACE).names())
        .extracting(ExtensionName::value).containsExactly("@s/a", "@s/peer");
  }

  @Test
  final void publish_whenItWasAbsent_isCreateOnly() throws IOException {
    assertThat(port().hydrate()).isEmpty();
    writeLocal(TierPath.LOCKFILE, encode("@s/mine"));
    plant(encode("@s/peer"));

    assertThat(port().publish(PublishRequest.lockfile(WriteCondition.mustNotExist())))
        .isEqualTo(PublishOutcome.Conflict.INSTANCE);

    assertThat(writes()).last().satisfies(e -> assertThat(e.condition()).isEqualTo("mustNotExist"));
    assertThat(TestCheckout.sharedLockfile(store().delegate(), NAMESPACE).names())
        .extracting(ExtensionName::value).containsExactly("@s/peer");
  }

  @Test
  final void publish_aLostResponse_isResolvedByReadingTheCommitIdBack() throws IOException {
    writeLocal(TierPath.LOCKFILE, encode("@s/mine"));
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE);

    PublishOutcome outcome = port().publish(PublishRequest.lockfile(WriteCondition.mustNotExist()));

    Optional<ObjectVersion> now = store().delegate().stat(LOCKFILE_KEY).map(o -> o.version());
    assertThat(outcome).isInstanceOfSatisfying(PublishOutcome.Published.class,
        p -> assertThat(p.lockfileVersion()).isEqualTo(now));
    assertThat(store().log().count(DatastoreOperation.STAT)).isEqualTo(1);
    assertThat(writes()).hasSize(1);
  }

  @Test
  final void publish_aWriteThatNeverApplied_isAConflictAfterTheReadBack() throws IOException {
    writeLocal(TierPath.LOCKFILE, encode("@s/mine"));
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.TIMEOUT_BEFORE_APPLY);

    assertThat(port().publish(PublishRequest.lockfile(WriteCondition.mustNotExist())))
        .isEqualTo(PublishOutcome.Conflict.INSTANCE);

    assertThat(store().delegate().stat(LOCKFILE_KEY)).isEmpty();
  }

  @Test
  final void publish_aLostResponseWithAFailedReadBack_staysUnknown() throws IOException {
    writeLocal(TierPath.LOCKFILE, encode("@s/mine"));
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE)
        .failNext(DatastoreOperation.STAT, 1, Fault.UNAVAILABLE);

    assertThatThrownBy(() -> port().publish(PublishRequest.lockfile(WriteCondition.mustNotExist())))
        .isInstanceOf(OutcomeUnknownException.class)
        .satisfies(e -> assertThat(e.getSuppressed()).singleElement().isInstanceOf(DatastoreUnavailableException.class))
        .extracting(e -> ((OutcomeUnknownException) e).code()).isEqualTo("outcome_unknown");
  }

  @Test
  final void publish_createOnlyPathsGoFirst_andOnesAlreadyPresentAreDone() throws IOException {
    byte[] archive = "archive-a".getBytes(StandardCharsets.UTF_8);
    store().delegate().write(NAMESPACE.key(ARCHIVE_A), ObjectBody.of(archive), WriteCondition.none(), ObjectMetadata.EMPTY);
    writeLocal(ARCHIVE_A, archive);
    writeLocal(ARCHIVE_B, "archive-b".getBytes(StandardCharsets.UTF_8));
    writeLocal(TierPath.LOCKFILE, encode("@s/a", "@s/b"));

    PublishOutcome outcome = port().publish(PublishRequest.lockfile(WriteCondition.mustNotExist())
        .withCreateOnly(List.of(ARCHIVE_A, ARCHIVE_B)));

    assertThat(outcome).isInstanceOf(PublishOutcome.Published.class);
    assertThat(writes()).extracting(LoggedOperation::target, LoggedOperation::condition, LoggedOperation::outcome)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(NAMESPACE.key(ARCHIVE_A).value(), "mustNotExist", "PRECONDITION_FAILED"),
            org.assertj.core.groups.Tuple.tuple(NAMESPACE.key(ARCHIVE_B).value(), "mustNotExist", "WRITTEN"),
            org.assertj.core.groups.Tuple.tuple(LOCKFILE_KEY.value(), "mustNotExist", "WRITTEN"));
  }

  @Test
  final void publish_deletesAfterTheLockfile() throws IOException {
    store().delegate().write(NAMESPACE.key(ARCHIVE_A), ObjectBody.of(new byte[] {1}), WriteCondition.none(), ObjectMetadata.EMPTY);
    writeLocal(TierPath.LOCKFILE, encode("@s/b"));

    PublishOutcome outcome = port().publish(PublishRequest.lockfile(WriteCondition.mustNotExist())
        .withDeletions(List.of(ARCHIVE_A, ARCHIVE_B)));

    assertThat(outcome).isInstanceOfSatisfying(PublishOutcome.Published.class, p -> assertThat(p.notDeleted()).isEmpty());
    assertThat(store().delegate().stat(NAMESPACE.key(ARCHIVE_A))).isEmpty();
    assertThat(store().log().entries()).extracting(LoggedOperation::operation).containsSubsequence(
        DatastoreOperation.WRITE, DatastoreOperation.STAT, DatastoreOperation.DELETE);
  }

  @Test
  final void publish_refusesAFileThatResolvesOutsideTheCache() throws IOException {
    Path outside = temp.resolve("state/secret");
    Files.createDirectories(outside.getParent());
    Files.writeString(outside, "secret");
    Path link = port().localPath(ARCHIVE_A);
    Files.createDirectories(link.getParent());
    Files.createSymbolicLink(link, outside);
    writeLocal(TierPath.LOCKFILE, encode("@s/a"));

    assertThatThrownBy(() -> port().publish(PublishRequest.lockfile(WriteCondition.mustNotExist())
        .withCreateOnly(List.of(ARCHIVE_A))))
        .isInstanceOf(PublishRefusedException.class)
        .hasMessageStartingWith("Cannot publish " + ARCHIVE_A + ": its local file ")
        .hasMessageContaining("which is not a regular file inside the cache root")
        .extracting(e -> ((PublishRefusedException) e).code()).isEqualTo("publish_refused");
    assertThat(writes()).isEmpty();
  }

  @Test
  final void publish_refusesALocalLockfileThatDoesNotDecode_orIsMissing() throws IOException {
    assertThatThrownBy(() -> port().publish(PublishRequest.lockfile(WriteCondition.mustNotExist())))
        .isInstanceOf(PublishRefusedException.class)
        .hasMessageContaining("does not exist");
    writeLocal(TierPath.LOCKFILE, "{\"@s/a\": 1}".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> port().publish(PublishRequest.lockfile(WriteCondition.mustNotExist())))
        .isInstanceOf(PublishRefusedException.class)
        .hasMessage("Cannot publish " + TierPath.LOCKFILE + ": the local copy does not decode")
        .hasCauseInstanceOf(LockfileFormatException.class);
    assertThat(writes()).isEmpty();
  }

  @Test
  final void internalFilesAndUnconditionalLockfileWrites_cannotEvenBeRequested() {
    assertThatThrownBy(() -> TierPath.of("config/upstream_extensions.json.lock"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use tier path \"config/upstream_extensions.json.lock\": lock files never leave the checkout");
    assertThatThrownBy(() -> PublishRequest.lockfile(WriteCondition.none()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot publish the shared lockfile without a precondition");
    assertThatThrownBy(() -> PublishRequest.pathsOnly().withCreateOnly(List.of(TierPath.LOCKFILE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("it is published last, conditionally");
  }
}
