package dev.tierlock.testkit;

import static dev.tierlock.testkit.ArchiveFixture.GLOBAL_LOCK_KEY;
import static dev.tierlock.testkit.ArchiveFixture.LOCKFILE_KEY;
import static dev.tierlock.testkit.ArchiveFixture.archive;
import static dev.tierlock.testkit.ArchiveFixture.indexOf;
import static dev.tierlock.testkit.ArchiveFixture.isLockfile;
import static dev.tierlock.testkit.ArchiveFixture.keyOf;
import static dev.tierlock.testkit.ArchiveFixture.objectKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.archive.ArchiveChange;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.util.List;

/**
 * The {@link ArchiveStoreContract} cases about archives leaving the tier: a delete is conditional
 * on the version it saw; an archive an update supersedes or a removal unpins is never deleted by
 * the transaction (a collection judges it by reachability), and its mark is written before the
 * lockfile write that unpins it.
 */
final class ArchiveDeletionScenarios {

  private static final ExtensionName TOOLS = ExtensionName.of("@acme/tools");

  private final ArchiveFixture fixture;
  private final Datastore datastore;
  private final FaultyDatastore a;
  private final FaultyDatastore b;
  private final TestClock clock;

  ArchiveDeletionScenarios(ArchiveFixture fixture) {
    this.fixture = fixture;
    this.datastore = fixture.datastore();
    this.a = fixture.a();
    this.b = fixture.b();
    this.clock = fixture.clock();
  }

  void delete_storedArchive_deletesConditionallyOnTheVersionSeen() throws IOException {
    byte[] bytes = archive("superseded");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    fixture.checkoutA().store(key, fixture.file("a.tar.gz", bytes));
    String version = datastore.stat(objectKey(key)).orElseThrow().version().value();
    a.log().clear();

    ArchiveChange change = fixture.checkoutA().delete(key);

    assertThat(change).isEqualTo(new ArchiveChange(key, ArchiveChange.Outcome.DELETED, List.of(key.tierPath())));
    assertThat(a.log().entries()).containsExactly(
        new LoggedOperation(DatastoreOperation.STAT, objectKey(key).value(), "always", "FOUND"),
        new LoggedOperation(DatastoreOperation.DELETE, objectKey(key).value(), "mustMatch(" + version + ")",
            "DELETED"));
    assertThat(datastore.list("")).isEmpty();
    assertThat(fixture.cacheFiles("a")).isEmpty();
    assertThat(fixture.checkoutA().delete(key)).isEqualTo(new ArchiveChange(key, ArchiveChange.Outcome.ABSENT, List.of()));
    assertThat(a.log().count(DatastoreOperation.DELETE)).isEqualTo(1);
  }

  void delete_whenReplacedMeanwhile_keepsTheObject() throws IOException {
    // The delete is conditional on the version it saw: an object written in between (here with
    // other bytes, so that every store, S3 with its content ETags included, gives it a new version)
    // is never deleted.
    byte[] bytes = archive("stored again");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    fixture.checkoutA().store(key, fixture.file("a.tar.gz", bytes));
    a.faults().beforeNext(DatastoreOperation.DELETE, k -> true, () -> fixture.plant(key, archive("written meanwhile")));

    ArchiveChange change = fixture.checkoutA().delete(key);

    assertThat(change).isEqualTo(new ArchiveChange(key, ArchiveChange.Outcome.KEPT, List.of()));
    assertThat(datastore.stat(objectKey(key))).isPresent();
    assertThat(fixture.cacheFiles("a")).hasSize(1);
  }

  void update_keepsTheSupersededArchive_andMarksItBeforeTheLockfilePublish() throws IOException {
    byte[] first = archive("first");
    byte[] second = archive("second");
    ExtensionArchiveKey firstKey = keyOf(TOOLS.value(), first);
    ExtensionArchiveKey secondKey = keyOf(TOOLS.value(), second);
    ArchiveCheckout checkoutA = fixture.checkout("a", a);
    checkoutA.install(checkoutA.verify(firstKey, fixture.file("first.tar.gz", first)), fixture.entry("1.0.0"));
    a.log().clear();

    checkoutA.install(checkoutA.verify(secondKey, fixture.file("second.tar.gz", second)), fixture.entry("2.0.0"));

    int archiveWrite = indexOf(a.log(), DatastoreOperation.WRITE, objectKey(secondKey), "WRITTEN");
    int lockfileWrite = indexOf(a.log(), DatastoreOperation.WRITE, LOCKFILE_KEY, "WRITTEN");
    assertThat(archiveWrite).isLessThan(lockfileWrite);
    assertThat(indexOf(a.log(), DatastoreOperation.WRITE, markKey(firstKey), "WRITTEN"))
        .as("the unpinned archive's mark is written before the lockfile").isLessThan(lockfileWrite);
    assertThat(indexOf(a.log(), DatastoreOperation.WRITE, markKey(secondKey), "WRITTEN"))
        .as("the pinned archive's mark is written before the lockfile").isLessThan(lockfileWrite);
    assertThat(a.log().entries(DatastoreOperation.DELETE)).extracting(LoggedOperation::target)
        .doesNotContain(objectKey(firstKey).value());
    assertThat(fixture.storedArchives()).containsExactlyInAnyOrder(objectKey(firstKey).value(),
        objectKey(secondKey).value());
    assertThat(fixture.sharedChecksum(TOOLS)).contains(secondKey.sha256());

    // the same archive again (another entry) supersedes nothing
    a.log().clear();
    checkoutA.install(checkoutA.verify(secondKey, fixture.file("second.tar.gz", second)), fixture.entry("2.0.1"));
    assertThat(a.log().entries(DatastoreOperation.DELETE)).extracting(LoggedOperation::target)
        .containsOnly(GLOBAL_LOCK_KEY.value());
    assertThat(a.log().entries(DatastoreOperation.WRITE)).extracting(LoggedOperation::target)
        .as("an unchanged pin marks nothing").doesNotContain(markKey(secondKey).value());
  }

  void remove_keepsTheArchive_forACollection() throws IOException {
    byte[] bytes = archive("removed");
    ExtensionArchiveKey key = keyOf(TOOLS.value(), bytes);
    ArchiveCheckout checkoutA = fixture.checkout("a", a);
    checkoutA.install(checkoutA.verify(key, fixture.file("a.tar.gz", bytes)), fixture.entry("1.0.0"));
    a.log().clear();

    ArchiveCheckout.Removed removed = checkoutA.remove(TOOLS);

    assertThat(removed.archives()).containsExactly(key);
    assertThat(removed.result().status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(indexOf(a.log(), DatastoreOperation.WRITE, markKey(key), "WRITTEN"))
        .isLessThan(indexOf(a.log(), DatastoreOperation.WRITE, LOCKFILE_KEY, "WRITTEN"));
    assertThat(a.log().entries(DatastoreOperation.DELETE)).extracting(LoggedOperation::target)
        .doesNotContain(objectKey(key).value());
    assertThat(fixture.storedArchives()).containsExactly(objectKey(key).value());
    assertThat(fixture.sharedLockfile().contains(TOOLS)).isFalse();
    assertThat(checkoutA.remove(TOOLS).archives()).as("removing an absent name changes nothing").isEmpty();
  }

  void remove_whenTheLockfilePublishFails_keepsTheArchive_throughTheReplay() throws IOException {
    byte[] bytes = archive("kept");
    ExtensionArchiveKey key = keyOf(TOOLS.value(), bytes);
    ArchiveCheckout checkoutA = fixture.checkout("a", a, clock.sleeper(), PublishFailurePolicy.DEFER);
    checkoutA.install(checkoutA.verify(key, fixture.file("a.tar.gz", bytes)), fixture.entry("1.0.0"));
    a.faults().failNext(DatastoreOperation.WRITE, isLockfile(), 50, Fault.UNAVAILABLE);
    a.log().clear();

    ArchiveCheckout.Removed removed = checkoutA.remove(TOOLS);

    assertThat(removed.result().status()).isEqualTo(TransactionStatus.DEFERRED);
    assertThat(a.log().entries(DatastoreOperation.DELETE)).extracting(LoggedOperation::target)
        .doesNotContain(objectKey(key).value());
    assertThat(fixture.storedArchives()).as("the shared lockfile still pins it").containsExactly(objectKey(key).value());
    assertThat(fixture.sharedChecksum(TOOLS)).contains(key.sha256());
    assertThat(checkoutA.tierlock().transaction().pending()).hasValueSatisfying(r -> {
      assertThat(r.delta().removals()).containsExactly(TOOLS);
    });
    a.faults().clear();
    a.log().clear();

    assertThat(checkoutA.tierlock().transaction().run(tx -> { }).status()).isEqualTo(TransactionStatus.PUBLISHED);

    assertThat(a.log().entries(DatastoreOperation.DELETE)).extracting(LoggedOperation::target)
        .doesNotContain(objectKey(key).value());
    assertThat(fixture.storedArchives()).as("kept for a collection").containsExactly(objectKey(key).value());
    assertThat(fixture.sharedLockfile().contains(TOOLS)).isFalse();
  }

  void update_whenAPeerPinsTheSupersededArchiveAgain_keepsIt() throws IOException {
    byte[] first = archive("first");
    byte[] second = archive("second");
    ExtensionArchiveKey firstKey = keyOf(TOOLS.value(), first);
    ExtensionArchiveKey secondKey = keyOf(TOOLS.value(), second);
    ArchiveCheckout checkoutA = fixture.checkout("a", a);
    ArchiveCheckout checkoutB = fixture.checkout("b", b);
    checkoutA.install(checkoutA.verify(firstKey, fixture.file("first.tar.gz", first)), fixture.entry("1.0.0"));
    a.faults().failNext(DatastoreOperation.WRITE, isLockfile(), 50, Fault.UNAVAILABLE);
    assertThatThrownBy(() -> checkoutA.install(checkoutA.verify(secondKey, fixture.file("second.tar.gz", second)),
        fixture.entry("2.0.0"))).isInstanceOf(ManagedConfigUnpublishedException.class);
    a.faults().clear();
    // meanwhile B pins the first archive again, under a new entry
    checkoutB.install(checkoutB.verify(firstKey, fixture.file("first-b.tar.gz", first)), fixture.entry("1.0.0-again"));
    a.log().clear();

    TransactionResult replay = checkoutA.tierlock().transaction().run(tx -> { });

    assertThat(replay.warnings()).anySatisfy(w -> assertThat(w).startsWith("Dropped the unpublished change to @acme/tools"));
    assertThat(a.log().entries(DatastoreOperation.DELETE)).extracting(LoggedOperation::target)
        .doesNotContain(objectKey(firstKey).value());
    assertThat(fixture.sharedLockfile().entry(TOOLS).orElseThrow().version()).isEqualTo("1.0.0-again");
    assertThat(fixture.sharedChecksum(TOOLS)).contains(firstKey.sha256());
    assertThat(fixture.storedArchives()).contains(objectKey(firstKey).value());
    assertThat(checkoutA.tierlock().transaction().pending()).isEmpty();
  }

  /** Returns the key of the mark a lockfile write that pins or unpins {@code key} writes first. */
  private static String markKeyValue(ExtensionArchiveKey key) {
    return ".tierlock-archives/" + key.name().value() + "/" + key.sha256();
  }

  private static dev.tierlock.spi.ObjectKey markKey(ExtensionArchiveKey key) {
    return dev.tierlock.spi.ObjectKey.of(markKeyValue(key));
  }
}
