package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.PendingChange;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.archive.ExtensionArchiveKey;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * When superseded and removed archives leave the tier: only after a lockfile that no longer
 * references them is published, never when that publish fails, and never while the lockfile being
 * published pins them again. Part of {@link ArchiveStoreContract}.
 */
abstract class ArchiveDeletionContract extends ArchiveStoreReadContract {

  private static final ExtensionName TOOLS = ExtensionName.of("@acme/tools");

  @Test
  final void update_deletesTheSupersededArchiveOnlyAfterTheLockfilePublish() throws IOException {
    byte[] first = archive("first");
    byte[] second = archive("second");
    ExtensionArchiveKey firstKey = keyOf(TOOLS.value(), first);
    ExtensionArchiveKey secondKey = keyOf(TOOLS.value(), second);
    ArchiveCheckout checkoutA = checkout("a", a());
    checkoutA.install(checkoutA.verify(firstKey, file("first.tar.gz", first)), entry("1.0.0"));
    a().log().clear();

    checkoutA.install(checkoutA.verify(secondKey, file("second.tar.gz", second)), entry("2.0.0"));

    int archiveWrite = indexOf(a().log(), DatastoreOperation.WRITE, objectKey(secondKey), "WRITTEN");
    int lockfileWrite = indexOf(a().log(), DatastoreOperation.WRITE, LOCKFILE_KEY, "WRITTEN");
    int delete = indexOf(a().log(), DatastoreOperation.DELETE, objectKey(firstKey), "DELETED");
    assertThat(archiveWrite).isLessThan(lockfileWrite);
    assertThat(lockfileWrite).isLessThan(delete);
    assertThat(storedArchives()).containsExactly(objectKey(secondKey).value());
    assertThat(sharedChecksum(TOOLS)).contains(secondKey.sha256());

    // the same archive again (another entry) supersedes nothing
    a().log().clear();
    checkoutA.install(checkoutA.verify(secondKey, file("second.tar.gz", second)), entry("2.0.1"));
    assertThat(a().log().entries(DatastoreOperation.DELETE)).extracting(LoggedOperation::target)
        .containsOnly(GLOBAL_LOCK_KEY.value());
    assertThat(storedArchives()).containsExactly(objectKey(secondKey).value());
  }

  @Test
  final void remove_deletesTheArchiveOnlyAfterTheLockfilePublish() throws IOException {
    byte[] bytes = archive("removed");
    ExtensionArchiveKey key = keyOf(TOOLS.value(), bytes);
    ArchiveCheckout checkoutA = checkout("a", a());
    checkoutA.install(checkoutA.verify(key, file("a.tar.gz", bytes)), entry("1.0.0"));
    a().log().clear();

    ArchiveCheckout.Removed removed = checkoutA.remove(TOOLS);

    assertThat(removed.archives()).containsExactly(key);
    assertThat(removed.result().status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(indexOf(a().log(), DatastoreOperation.WRITE, LOCKFILE_KEY, "WRITTEN"))
        .isLessThan(indexOf(a().log(), DatastoreOperation.DELETE, objectKey(key), "DELETED"));
    assertThat(storedArchives()).isEmpty();
    assertThat(sharedLockfile().contains(TOOLS)).isFalse();
    assertThat(checkoutA.remove(TOOLS).archives()).as("removing an absent name changes nothing").isEmpty();
  }

  @Test
  final void remove_whenTheLockfilePublishFails_keepsTheArchiveUntilTheReplayPublishes() throws IOException {
    byte[] bytes = archive("kept");
    ExtensionArchiveKey key = keyOf(TOOLS.value(), bytes);
    ArchiveCheckout checkoutA = checkout("a", a(), clock.sleeper(), PublishFailurePolicy.DEFER);
    checkoutA.install(checkoutA.verify(key, file("a.tar.gz", bytes)), entry("1.0.0"));
    a().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 50, Fault.UNAVAILABLE);
    a().log().clear();

    ArchiveCheckout.Removed removed = checkoutA.remove(TOOLS);

    assertThat(removed.result().status()).isEqualTo(TransactionStatus.DEFERRED);
    assertThat(a().log().entries(DatastoreOperation.DELETE)).extracting(LoggedOperation::target)
        .doesNotContain(objectKey(key).value());
    assertThat(storedArchives()).as("the shared lockfile still pins it").containsExactly(objectKey(key).value());
    assertThat(sharedChecksum(TOOLS)).contains(key.sha256());
    assertThat(checkoutA.tierlock().transaction().pending()).hasValueSatisfying(r -> {
      assertThat(r.delta().removals()).containsExactly(TOOLS);
    });
    a().faults().clear();
    a().log().clear();

    assertThat(checkoutA.tierlock().transaction().run(tx -> { }).status()).isEqualTo(TransactionStatus.PUBLISHED);

    assertThat(indexOf(a().log(), DatastoreOperation.WRITE, LOCKFILE_KEY, "WRITTEN"))
        .isLessThan(indexOf(a().log(), DatastoreOperation.DELETE, objectKey(key), "DELETED"));
    assertThat(storedArchives()).isEmpty();
    assertThat(sharedLockfile().contains(TOOLS)).isFalse();
  }

  @Test
  final void update_whenAPeerPinsTheSupersededArchiveAgain_keepsIt() throws IOException {
    byte[] first = archive("first");
    byte[] second = archive("second");
    ExtensionArchiveKey firstKey = keyOf(TOOLS.value(), first);
    ExtensionArchiveKey secondKey = keyOf(TOOLS.value(), second);
    ArchiveCheckout checkoutA = checkout("a", a());
    ArchiveCheckout checkoutB = checkout("b", b());
    checkoutA.install(checkoutA.verify(firstKey, file("first.tar.gz", first)), entry("1.0.0"));
    a().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 50, Fault.UNAVAILABLE);
    assertThatThrownBy(() -> checkoutA.install(checkoutA.verify(secondKey, file("second.tar.gz", second)),
        entry("2.0.0"))).isInstanceOf(ManagedConfigUnpublishedException.class);
    a().faults().clear();
    // meanwhile B pins the first archive again, under a new entry
    checkoutB.install(checkoutB.verify(firstKey, file("first-b.tar.gz", first)), entry("1.0.0-again"));
    a().log().clear();

    TransactionResult replay = checkoutA.tierlock().transaction().run(tx -> { });

    assertThat(replay.warnings()).anySatisfy(w -> assertThat(w).startsWith("Dropped the unpublished change to @acme/tools"))
        .contains("Kept " + firstKey.tierPath() + " in " + checkoutA.tierlock().transaction().describe()
            + ": the published lockfile pins it again");
    assertThat(a().log().entries(DatastoreOperation.DELETE)).extracting(LoggedOperation::target)
        .doesNotContain(objectKey(firstKey).value());
    assertThat(sharedLockfile().entry(TOOLS).orElseThrow().version()).isEqualTo("1.0.0-again");
    assertThat(sharedChecksum(TOOLS)).contains(firstKey.sha256());
    assertThat(storedArchives()).contains(objectKey(firstKey).value());
    assertThat(checkoutA.tierlock().transaction().pending()).isEmpty();
  }
}
