package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a run reports and keeps at the edges of its outcomes: a conflict followed by a failed
 * publish, a store without room for a commit id, a pending record that names what it must not
 * (the shared lockfile among its deletions) or that an earlier Tierlock left unbound.
 */
class RunOutcomeEdgesTest {

  @TempDir Path temp;

  private TransactionFixture f;

  @BeforeEach
  void open() {
    f = TransactionFixture.open(FakeRemote.create(), temp);
  }

  @AfterEach
  void close() {
    f.close();
  }

  // When a run meets a conflict on one name and then fails to publish the rest, the worse outcome is
  // the exception: {@link dev.tierlock.ManagedConfigUnpublishedException} (the rest is saved, not
  // published; run it again), naming the rest and the conflict, never a {@link
  // LockfileConflictException} whose promise is that the rest was published.

  @Test
  void aConflictOnOneName_thenAFailedPublishOfTheRest_saysTheRestIsNotPublished() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      f.stallPastTheLease();
      assertThat(b.put("@s/x", "2").status()).isEqualTo(TransactionStatus.PUBLISHED);
      // a's write is refused (b's version is newer); every later write fails as unavailable
      f.store().faults().afterNext(DatastoreOperation.WRITE, isLockfile(), f::failLockfileWrites);
    });

    Throwable thrown = catchThrowable(() -> a.transaction().run(tx -> {
      tx.put(name("@s/x"), f.entry("1"));
      tx.put(name("@s/y"), f.entry("1"));
    }));

    assertThat(f.shared().contains(name("@s/y"))).as("the rest was not published").isFalse();
    assertThat(a.transaction().pending()).map(PendingChange::state).contains(PendingChange.State.UNPUBLISHED);
    assertThat(f.store().faults().pendingHooks()).isZero();
    assertThat(thrown).isNotNull();
    assertThat(thrown.getMessage()).as("the exception tells that @s/y is saved but not published (it is a "
        + thrown.getClass().getSimpleName() + ")").contains("@s/y");
  }

  // A datastore whose metadata cannot hold a commit id (one that keeps no user metadata reports 0)
  // is refused before anything is sent or recorded as in flight: {@link
  // dev.tierlock.spi.DatastoreUnsafeException} naming the metadata, not an unanswered write.

  @Test
  void aStoreWithoutRoomForACommitId_isAClearError_notAnUnansweredWrite() {
    Datastore noMetadata = TransactionFixture.withMetadataCapacity(f.store(), 0);
    TestCheckout a = f.register(f.builder("a", noMetadata).build());

    Throwable thrown = catchThrowable(() -> a.put("@s/x", "1"));

    assertThat(f.lockfileWrites()).as("nothing was sent").isZero();
    assertThat(thrown).as("the outcome is known: nothing was written")
        .isNotInstanceOf(LockfileOutcomeUnknownException.class)
        .hasMessageContaining("metadata");
    assertThat(a.transaction().pending()).as("nothing can have landed: no write in flight")
        .map(PendingChange::state).isNotEqualTo(java.util.Optional.of(PendingChange.State.IN_FLIGHT));
  }

  // A pending record's deletions may name only extension archives: a damaged or foreign record that
  // names the shared lockfile is unreadable (a clear error that changes nothing), so no run ever
  // deletes the shared lockfile after publishing.

  @Test
  void aRecordWhoseDeletionsNameTheLockfile_neverDeletesTheSharedLockfile() throws Exception {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    b.put("@s/peer", "1");
    Files.createDirectories(PendingScenarios.recordOf(a).getParent());
    Files.writeString(PendingScenarios.recordOf(a),
        "{\"version\":3,\"upserts\":{},\"removals\":[],\"base\":{},\"deletions\":[\"config/upstream_extensions.json\"]}\n",
        StandardCharsets.UTF_8);

    Throwable outcome = catchThrowable(() -> a.put("@s/x", "1"));

    assertThat(f.sharedObject()).as("the shared lockfile, with b's acknowledged entry (a's run: " + outcome + ")")
        .isPresent();
    assertThat(f.shared().contains(TransactionFixture.name("@s/peer"))).isTrue();
  }

  // A change an earlier Tierlock saved at the state directory's root without naming its namespace
  // (before records moved to {@code namespaces/<ns>/}) is never dropped in silence after an upgrade:
  // a namespaced checkout cannot tell whether it is its own, so it leaves it alone and every run says
  // it is there and what to do.

  @Test
  void aChangeAnEarlierTierlockSavedForANamespacedCheckout_isPublishedOrReportedAfterTheUpgrade() throws IOException {
    TestCheckout a = f.checkout("a");
    a.put("@s/base", "1");
    // <state>/namespaces/team/managed-config-lockfile-unpublished -> <state>
    Path state = a.pendingRecordPath().getParent().getParent().getParent();
    assertThat(a.pendingRecordPath()).isEqualTo(state.resolve("namespaces").resolve("team")
        .resolve("managed-config-lockfile-unpublished"));
    // what the previous Tierlock (same format version 3) left after a publish it could not make
    Files.writeString(state.resolve("managed-config-lockfile-unpublished"), "{\"version\":3,\"upserts\":{\"@s/x\":"
        + "{\"pulledAt\":\"2026-01-01T00:00:00.000Z\",\"version\":\"1\"}},\"removals\":[],\"base\":{}}\n");
    a = f.reopen(a);

    boolean reported = a.transaction().pending().isPresent();
    TestCheckout upgraded = a;
    TransactionResult[] result = new TransactionResult[1];
    Throwable thrown = catchThrowable(() -> result[0] = upgraded.put("@s/y", "1"));
    List<String> warnings = result[0] == null ? List.of() : result[0].warnings();

    assertThat(reported || thrown != null || !warnings.isEmpty() || f.shared().contains(TransactionFixture.name("@s/x")))
        .as("the saved change @s/x is published, or the caller is told about it; shared lockfile now "
            + versions(f.shared()) + ", pending " + upgraded.transaction().pending() + ", warnings " + warnings)
        .isTrue();
  }
}
