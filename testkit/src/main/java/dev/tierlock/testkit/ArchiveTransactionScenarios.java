package dev.tierlock.testkit;

import static dev.tierlock.testkit.ArchiveFixture.GLOBAL_LOCK_KEY;
import static dev.tierlock.testkit.ArchiveFixture.LOCKFILE_KEY;
import static dev.tierlock.testkit.ArchiveFixture.TIMEOUT;
import static dev.tierlock.testkit.ArchiveFixture.archive;
import static dev.tierlock.testkit.ArchiveFixture.isArchive;
import static dev.tierlock.testkit.ArchiveFixture.isLockfile;
import static dev.tierlock.testkit.ArchiveFixture.keyOf;
import static dev.tierlock.testkit.ArchiveFixture.objectKey;
import static dev.tierlock.testkit.ArchiveFixture.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TransactionStatus;
import dev.tierlock.archive.ArchiveChange;
import dev.tierlock.archive.ArchiveException;
import dev.tierlock.archive.ArchiveFile;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.archive.RestoredArchive;
import dev.tierlock.archive.VerifiedArchive;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.DatastoreUnavailableException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@link ArchiveStoreContract} cases with the lockfile ({@link
 * dev.tierlock.archive.ArchiveTransactions}): install then peer restore, failures on either side
 * of the lockfile publish, two checkouts installing at once, a tampered tier refused at restore, a
 * staged copy turned into a link, and checkouts on the unwrapped datastore.
 */
final class ArchiveTransactionScenarios {

  private static final ExtensionName TOOLS = ExtensionName.of("@acme/tools");

  private final ArchiveFixture fixture;
  private final Datastore datastore;
  private final FaultyDatastore a;
  private final FaultyDatastore b;

  ArchiveTransactionScenarios(ArchiveFixture fixture) {
    this.fixture = fixture;
    this.datastore = fixture.datastore();
    this.a = fixture.a();
    this.b = fixture.b();
  }

  void install_thenPeerRestore_restoresTheSameBytesFromTheTierAlone() throws IOException {
    byte[] bytes = archive("peer restore");
    ExtensionArchiveKey key = keyOf(TOOLS.value(), bytes);
    ArchiveCheckout checkoutA = fixture.checkout("a", a);
    ArchiveCheckout checkoutB = fixture.checkout("b", b);

    VerifiedArchive verified = checkoutA.verify(key, fixture.file("a.tar.gz", bytes));
    assertThat(a.log().entries()).as("verifying happens before any lock, without the datastore").isEmpty();
    ArchiveCheckout.Installed installed = checkoutA.install(verified, fixture.entry("1.0.0"));

    assertThat(installed.change().outcome()).isEqualTo(ArchiveChange.Outcome.CREATED);
    assertThat(installed.result().status()).isEqualTo(TransactionStatus.PUBLISHED);
    ObjectKey mark = ObjectKey.of(".tierlock-archives/" + TOOLS.value() + "/" + key.sha256());
    assertThat(a.log().writtenKeys()).containsSubsequence(objectKey(key), mark, LOCKFILE_KEY)
        .allSatisfy(k -> assertThat(Set.of(objectKey(key), mark, LOCKFILE_KEY, GLOBAL_LOCK_KEY)).contains(k));
    assertThat(fixture.sharedChecksum(TOOLS)).contains(key.sha256());

    Path staging = fixture.temp().resolve("staging-b");
    RestoredArchive restored = checkoutB.archives().restore(TOOLS, staging).orElseThrow();

    assertThat(restored.key()).isEqualTo(key);
    assertThat(restored.origin()).isEqualTo(ArchiveFile.Origin.DATASTORE);
    assertThat(restored.listing().paths()).containsExactly("pkg/readme.txt");
    assertThat(staging.resolve("pkg/readme.txt")).hasContent("peer restore");
    assertThat(checkoutB.cachedArchives()).containsExactly(key.tierPath().value());
    // B reaches nothing but the datastore: the global lock, the lockfile and the one archive
    assertThat(b.log().entries()).extracting(LoggedOperation::target)
        .allSatisfy(t -> assertThat(Set.of(GLOBAL_LOCK_KEY.value(), LOCKFILE_KEY.value(), objectKey(key).value()))
            .contains(t));
    assertThat(b.log().entries(DatastoreOperation.OPEN_STREAM)).containsExactly(
        new LoggedOperation(DatastoreOperation.OPEN_STREAM, objectKey(key).value(), "always", "FOUND"));
  }

  void install_whenTheArchiveWriteFails_publishesNoEntry() throws IOException {
    byte[] bytes = archive("write fails");
    ExtensionArchiveKey key = keyOf(TOOLS.value(), bytes);
    ArchiveCheckout checkoutA = fixture.checkout("a", a);
    VerifiedArchive verified = checkoutA.verify(key, fixture.file("a.tar.gz", bytes));
    a.faults().failNext(DatastoreOperation.WRITE, isArchive(key), 1, Fault.UNAVAILABLE);

    assertThatThrownBy(() -> checkoutA.install(verified, fixture.entry("1.0.0")))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessageStartingWith("Cannot write object " + objectKey(key).value() + " at ")
        .extracting(e -> ((DatastoreUnavailableException) e).code()).isEqualTo("datastore_unavailable");

    assertThat(a.log().writtenKeys()).doesNotContain(LOCKFILE_KEY, objectKey(key));
    assertThat(fixture.sharedLockfile().contains(TOOLS)).isFalse();
    assertThat(checkoutA.tierlock().snapshot().contains(TOOLS)).isFalse();
    assertThat(checkoutA.tierlock().transaction().pending()).isEmpty();
    assertThat(fixture.storedArchives()).isEmpty();

    // the verified copy waits in the cache: installing again needs no new download
    assertThat(checkoutA.install(verified, fixture.entry("1.0.0")).change().outcome()).isEqualTo(ArchiveChange.Outcome.CREATED);
    assertThat(fixture.sharedChecksum(TOOLS)).contains(key.sha256());
  }

  void install_whenTheLockfilePublishFails_keepsTheArchive_andTheReplayPublishesTheEntry() throws IOException {
    byte[] bytes = archive("publish fails");
    ExtensionArchiveKey key = keyOf(TOOLS.value(), bytes);
    ArchiveCheckout checkoutA = fixture.checkout("a", a);
    ArchiveCheckout checkoutB = fixture.checkout("b", b);
    VerifiedArchive verified = checkoutA.verify(key, fixture.file("a.tar.gz", bytes));
    a.faults().failNext(DatastoreOperation.WRITE, isLockfile(), 50, Fault.UNAVAILABLE);

    assertThatThrownBy(() -> checkoutA.install(verified, fixture.entry("1.0.0")))
        .isInstanceOf(ManagedConfigUnpublishedException.class)
        .hasMessageStartingWith("Cannot publish lockfile change to ")
        .hasCauseInstanceOf(DatastoreUnavailableException.class)
        .extracting(e -> ((ManagedConfigUnpublishedException) e).code()).isEqualTo("managed_config_unpublished");

    assertThat(fixture.storedArchives()).as("the archive landed first and stays").containsExactly(objectKey(key).value());
    assertThat(fixture.sharedLockfile().contains(TOOLS)).isFalse();
    assertThat(checkoutA.tierlock().transaction().pending()).hasValueSatisfying(r -> assertThat(r.delta().target(TOOLS).flatMap(e -> e.checksum())).contains(key.sha256()));
    a.faults().clear();
    a.log().clear();

    assertThat(checkoutA.tierlock().transaction().run(tx -> { }).status()).isEqualTo(TransactionStatus.PUBLISHED);

    assertThat(a.log().writtenKeys()).contains(LOCKFILE_KEY).doesNotContain(objectKey(key));
    assertThat(fixture.sharedChecksum(TOOLS)).contains(key.sha256());
    Path staging = fixture.temp().resolve("staging-b");
    checkoutB.archives().restore(TOOLS, staging).orElseThrow();
    assertThat(staging.resolve("pkg/readme.txt")).hasContent("publish fails");
  }

  void install_sameArchiveFromTwoCheckoutsAtOnce_bothSucceedWithOneObject() throws Exception {
    byte[] bytes = archive("at once");
    ExtensionArchiveKey key = keyOf(TOOLS.value(), bytes);
    CountDownLatch bWaitsForTheLock = new CountDownLatch(1);
    CountDownLatch aDone = new CountDownLatch(1);
    ArchiveCheckout checkoutA = fixture.checkout("a", a);
    ArchiveCheckout checkoutB = fixture.checkout("b", b, duration -> {
      bWaitsForTheLock.countDown();
      await(aDone, "A to finish its install");
    }, PublishFailurePolicy.THROW);
    VerifiedArchive verifiedA = checkoutA.verify(key, fixture.file("a.tar.gz", bytes));
    VerifiedArchive verifiedB = checkoutB.verify(key, fixture.file("b.tar.gz", bytes));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    AtomicReference<Future<ArchiveCheckout.Installed>> installB = new AtomicReference<>();
    // A holds the global lock and is about to write the archive: B starts and waits for the lock
    a.faults().beforeNext(DatastoreOperation.WRITE, isArchive(key), () -> {
      installB.set(pool.submit(() -> checkoutB.install(verifiedB, fixture.entry("1.0.0"))));
      await(bWaitsForTheLock, "B to wait for the lock");
    });
    try {
      ArchiveCheckout.Installed first = checkoutA.install(verifiedA, fixture.entry("1.0.0"));
      aDone.countDown();
      ArchiveCheckout.Installed second = installB.get().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

      assertThat(first.change().outcome()).isEqualTo(ArchiveChange.Outcome.CREATED);
      assertThat(second.change().outcome()).isEqualTo(ArchiveChange.Outcome.ALREADY_PRESENT);
      assertThat(second.result().status()).isEqualTo(TransactionStatus.NO_CHANGE);
    } finally {
      aDone.countDown();
      pool.shutdownNow();
      assertThat(pool.awaitTermination(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }
    assertThat(fixture.storedArchives()).containsExactly(objectKey(key).value());
    assertThat(a.log().writtenKeys().stream().filter(objectKey(key)::equals).count()
        + b.log().writtenKeys().stream().filter(objectKey(key)::equals).count()).isEqualTo(1);
    assertThat(fixture.sharedChecksum(TOOLS)).contains(key.sha256());
  }

  void restore_tamperedArchiveInTheTier_failsWithNothingExtractedAndNothingCached() throws IOException {
    byte[] bytes = archive("genuine");
    ExtensionArchiveKey key = keyOf(TOOLS.value(), bytes);
    ArchiveCheckout checkoutA = fixture.checkout("a", a);
    ArchiveCheckout checkoutB = fixture.checkout("b", b);
    checkoutA.install(checkoutA.verify(key, fixture.file("a.tar.gz", bytes)), fixture.entry("1.0.0"));
    byte[] planted = archive("malicious replacement");
    fixture.plant(key, planted);
    Path staging = fixture.temp().resolve("staging-b");

    assertThatThrownBy(() -> checkoutB.archives().restore(TOOLS, staging))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED))
        .hasMessageStartingWith("Cannot read archive " + key + ": the bytes from ")
        .hasMessageEndingWith(" have SHA-256 " + sha256(planted) + ", expected " + key.sha256() + "; they were discarded")
        .extracting(e -> ((ArchiveException) e).code()).isEqualTo("archive_tampered");

    assertThat(staging).doesNotExist();
    assertThat(checkoutB.cachedArchives()).isEmpty();
  }

  void install_stagedCopyTurnedIntoALink_isRefusedAndNothingTravels() throws IOException {
    byte[] bytes = archive("staged");
    ExtensionArchiveKey key = keyOf(TOOLS.value(), bytes);
    ArchiveCheckout checkoutA = fixture.checkout("a", a);
    VerifiedArchive verified = checkoutA.verify(key, fixture.file("a.tar.gz", bytes));
    Path secret = Files.write(checkoutA.tierlock().stateDirectory().resolve("secret.txt"),
        "not for the datastore".getBytes(StandardCharsets.UTF_8));
    Files.delete(verified.path());
    Files.createSymbolicLink(verified.path(), secret);

    assertThatThrownBy(() -> checkoutA.install(verified, fixture.entry("1.0.0")))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.IO))
        .hasMessageStartingWith("Cannot read the staged archive " + key + " at " + verified.path() + ": ")
        .extracting(e -> ((ArchiveException) e).code()).isEqualTo("archive_io");

    assertThat(a.log().entries(DatastoreOperation.WRITE)).extracting(LoggedOperation::target)
        .containsOnly(GLOBAL_LOCK_KEY.value());
    assertThat(fixture.storedArchives()).isEmpty();
    assertThat(fixture.sharedLockfile().contains(TOOLS)).isFalse();
  }

  void installUpdateRemoveAndRestore_checkoutsOnTheUnwrappedDatastore_shareOneTier() throws IOException {
    Datastore own = datastore;
    byte[] first = archive("first");
    byte[] second = archive("second");
    ExtensionArchiveKey firstKey = keyOf(TOOLS.value(), first);
    ExtensionArchiveKey secondKey = keyOf(TOOLS.value(), second);
    ArchiveCheckout checkoutA = fixture.checkout("a", own);
    ArchiveCheckout checkoutB = fixture.checkout("b", own);

    checkoutA.install(checkoutA.verify(firstKey, fixture.file("first.tar.gz", first)), fixture.entry("1.0.0"));
    Path staging = fixture.temp().resolve("staging-1");
    assertThat(checkoutB.archives().restore(TOOLS, staging).orElseThrow().key()).isEqualTo(firstKey);
    assertThat(staging.resolve("pkg/readme.txt")).hasContent("first");

    checkoutB.install(checkoutB.verify(secondKey, fixture.file("second.tar.gz", second)), fixture.entry("2.0.0"));
    assertThat(fixture.storedArchives()).as("the superseded archive is kept for a collection")
        .containsExactlyInAnyOrder(objectKey(firstKey).value(), objectKey(secondKey).value());
    Path again = fixture.temp().resolve("staging-2");
    assertThat(checkoutA.archives().restore(TOOLS, again).orElseThrow().key()).isEqualTo(secondKey);
    assertThat(again.resolve("pkg/readme.txt")).hasContent("second");

    assertThat(checkoutA.remove(TOOLS).archives()).containsExactly(secondKey);
    assertThat(fixture.storedArchives()).hasSize(2);
    assertThat(fixture.sharedLockfile().contains(TOOLS)).isFalse();
    assertThat(checkoutB.archives().restore(TOOLS, fixture.temp().resolve("staging-3"))).isEmpty();
  }

  private static void await(CountDownLatch latch, String what) {
    try {
      if (!latch.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        throw new AssertionError("Cannot go on: waited " + TIMEOUT + " for " + what);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("Cannot go on: interrupted while waiting for " + what, e);
    }
  }
}
