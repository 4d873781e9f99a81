package dev.tierlock.testkit;

import static dev.tierlock.testkit.ArchiveFixture.archive;
import static dev.tierlock.testkit.ArchiveFixture.isLockfile;
import static dev.tierlock.testkit.ArchiveFixture.keyOf;
import static dev.tierlock.testkit.ArchiveFixture.objectKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockOptions;
import dev.tierlock.TransactionStatus;
import dev.tierlock.archive.ExtensionArchiveKey;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run whose global lease is taken over right after its publish never deletes the archive its
 * change superseded (nothing in the commit path deletes one): the peer that took the lease over
 * pinned it again, and the tier still holds it.
 */
class SupersededArchiveRepinnedBeforeDeleteTest {

  private static final ExtensionName TOOLS = ExtensionName.of("@acme/tools");

  @TempDir Path temp;

  private ArchiveFixture fixture;

  @BeforeEach
  void open() {
    fixture = new ArchiveFixture(FakeRemote.create(), temp);
  }

  @AfterEach
  void close() {
    fixture.closeCheckouts();
    fixture.datastore().close();
  }

  @Test
  void aPeerThatPinsTheSupersededArchiveAgainBeforeItIsDeleted_keepsItsArchive() throws IOException {
    byte[] first = archive("first");
    byte[] second = archive("second");
    ExtensionArchiveKey firstKey = keyOf(TOOLS.value(), first);
    ExtensionArchiveKey secondKey = keyOf(TOOLS.value(), second);
    ArchiveCheckout checkoutA = fixture.checkout("a", fixture.a());
    ArchiveCheckout checkoutB = fixture.checkout("b", fixture.b());
    Path firstForB = fixture.file("first-b.tar.gz", first);
    checkoutA.install(checkoutA.verify(firstKey, fixture.file("first.tar.gz", first)), fixture.entry("1.0.0"));
    // a's upgrade to the second archive lands; before a deletes the first one, b (a's lease has
    // gone stale) installs the first archive again, which is still in the tier
    fixture.a().faults().afterNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      fixture.clock().advance(LockOptions.DEFAULTS.ttl().plusSeconds(1));
      assertThat(checkoutB.install(checkoutB.verify(firstKey, firstForB),
          fixture.entry("1.0.0-again")).result().status()).as("b's install is acknowledged")
          .isEqualTo(TransactionStatus.PUBLISHED);
    });

    checkoutA.install(checkoutA.verify(secondKey, fixture.file("second.tar.gz", second)), fixture.entry("2.0.0"));

    assertThat(fixture.a().faults().pendingHooks()).isZero();
    assertThat(fixture.sharedChecksum(TOOLS)).as("b's acknowledged install pins the first archive")
        .contains(firstKey.sha256());
    assertThat(fixture.storedArchives()).as("the archive the shared lockfile pins is in the tier")
        .contains(objectKey(firstKey).value());
  }
}
