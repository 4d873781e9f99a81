package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.filesOutsideInternal;
import static dev.tierlock.datastore.fs.Fixtures.tempFiles;
import static dev.tierlock.datastore.fs.Fixtures.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileFormatException;
import dev.tierlock.LockOptions;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.CountingDatastore;
import dev.tierlock.testkit.DatastoreOperation;
import dev.tierlock.testkit.TestCheckout;
import dev.tierlock.testkit.TestClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Checkouts of one shared directory, each on its own {@link FileSystemDatastore} as on two
 * machines, one of them behind a {@link CountingDatastore} (a {@link
 * dev.tierlock.spi.ForwardingDatastore}): they take the one path every datastore takes (cache,
 * conditional read, compare-and-swap publish), so the wrapper changes nothing, and a holder
 * stalled past its lease is refused and rebased instead of overwriting its peer.
 */
class FileSystemCheckoutsTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final String VERDICT = ".tierlock-selfcheck/verdict";

  @TempDir
  Path temp;

  private final TestClock clock = TestClock.create();
  private FileSystemDatastore bare;
  private CountingDatastore wrapped;
  private TestCheckout onBare;
  private TestCheckout onWrapped;

  @BeforeEach
  void openCheckouts() {
    bare = FileSystemDatastore.open(temp.resolve("shared"));
    wrapped = CountingDatastore.wrap(FileSystemDatastore.open(temp.resolve("shared")));
    onBare = TestCheckout.builder(bare, temp.resolve("bare"), clock).build();
    onWrapped = TestCheckout.builder(wrapped, temp.resolve("wrapped"), clock).build();
  }

  @AfterEach
  void closeCheckouts() throws IOException {
    onBare.close();
    onWrapped.close();
    assertThat(tempFiles(bare.root())).as("temp files left behind").isEmpty();
  }

  @Test
  void aWrappedStore_isTheBareStore_toTierlock() {
    assertThat(wrapped.identity()).isEqualTo(bare.identity());
    assertThat(wrapped.describe()).isEqualTo(bare.describe());
    assertThat(wrapped.versionsRepeat()).isEqualTo(bare.versionsRepeat()).isTrue();
    assertThat(wrapped.maxMetadataBytes()).isEqualTo(bare.maxMetadataBytes()).isEqualTo(8192);
  }

  @Test
  void checkoutsOnTheBareAndTheWrappedStore_interleaveOnOneRoot_andKeepEveryChange() throws IOException {
    onBare.put("@acme/web", "1.0.0");
    wrapped.reset();
    onWrapped.put("@acme/db", "2.0.0");
    assertThat(wrapped.count(DatastoreOperation.READ)).as("the wrapped checkout fetched through the wrapper").isPositive();
    assertThat(wrapped.count(DatastoreOperation.WRITE)).as("and published through it").isPositive();
    onBare.put("@acme/api", "3.0.0");
    TransactionResult removed = onWrapped.remove("@acme/web");
    onBare.put("@acme/db", "2.1.0");

    assertThat(removed.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(shared())).containsExactly(entry("@acme/db", "2.1.0"), entry("@acme/api", "3.0.0"));
    assertThat(versions(onWrapped.transaction().refresh().lockfile())).isEqualTo(versions(shared()));
    assertThat(Files.readAllBytes(bare.pathOf(LOCKFILE))).isEqualTo(shared().bytes());
    assertThat(filesOutsideInternal(bare.root())).containsExactly(VERDICT, LOCKFILE.value());
  }

  /**
   * The stalled holder's change runs while its peer waits for the global lock on the shared test
   * clock: the wait moves the clock past the stalled holder's lease, the peer takes the lock over
   * and publishes; then the stalled holder publishes on the version it fetched before.
   */
  @ParameterizedTest(name = "stalled on the {0} store")
  @ValueSource(strings = {"bare", "wrapped"})
  void aHolderStalledPastItsLease_isRefusedAndRebased_andNeverOverwritesItsPeer(String stalledOn) {
    TestCheckout stalled = stalledOn.equals("bare") ? onBare : onWrapped;
    TestCheckout peer = stalledOn.equals("bare") ? onWrapped : onBare;
    stalled.put("@acme/web", "1.0.0");
    Instant start = clock.instant();
    AtomicReference<TransactionResult> peerResult = new AtomicReference<>();

    TransactionResult result = stalled.transaction().run(tx -> {
      tx.put(ExtensionName.of("@acme/api"), stalled.entry("3.0.0"));
      peerResult.set(peer.put("@acme/db", "2.0.0"));
    });

    assertThat(clock.instant()).as("the peer waited out the stalled holder's lease")
        .isAfter(start.plus(LockOptions.DEFAULTS.ttl()));
    assertThat(peerResult.get().status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).as("refused once, rebased, published").isEqualTo(2);
    assertThat(result.warnings()).anySatisfy(w -> assertThat(w).startsWith("The global lock ")
        .endsWith(" was lost during the transaction; publishing stays safe: it is conditional on the version fetched"));
    assertThat(versions(shared()))
        .containsExactly(entry("@acme/web", "1.0.0"), entry("@acme/db", "2.0.0"), entry("@acme/api", "3.0.0"));
  }

  @ParameterizedTest(name = "stalled on the {0} store")
  @ValueSource(strings = {"bare", "wrapped"})
  void aHolderStalledPastItsLease_thatChangedTheSameName_keepsItsPeersValue(String stalledOn) {
    TestCheckout stalled = stalledOn.equals("bare") ? onBare : onWrapped;
    TestCheckout peer = stalledOn.equals("bare") ? onWrapped : onBare;
    stalled.put("@acme/web", "1.0.0");

    assertThatThrownBy(() -> stalled.transaction().run(tx -> {
      tx.put(ExtensionName.of("@acme/web"), stalled.entry("1.1.0-stalled"));
      tx.put(ExtensionName.of("@acme/api"), stalled.entry("3.0.0"));
      peer.put("@acme/web", "2.0.0");
    }))
        .isExactlyInstanceOf(LockfileConflictException.class)
        .hasMessageStartingWith("Cannot publish lockfile change to " + bare.describe() + " " + LOCKFILE
            + ": another checkout changed @acme/web")
        .hasMessageContaining(" at the same time; their change is kept and this one is dropped for that entry (also:"
            + " The global lock ")
        .satisfies(e -> assertThat(((LockfileConflictException) e).conflicts())
            .extracting(c -> c.name().value()).containsExactly("@acme/web"))
        .satisfies(e -> assertThat(((LockfileConflictException) e).warnings()).singleElement().asString()
            .contains("was lost during the transaction"));

    assertThat(versions(shared())).as("the peer's acknowledged value stays; the rest was rebased and published")
        .containsExactly(entry("@acme/web", "2.0.0"), entry("@acme/api", "3.0.0"));
    assertThat(stalled.transaction().pending()).isEmpty();
  }

  @Test
  void everyTransaction_onACorruptSharedLockfile_failsNamingIt_andLeavesItByteIdentical() throws IOException {
    onBare.put("@acme/web", "1.0.0");
    Path file = bare.pathOf(LOCKFILE);
    byte[] corrupt = "{\n  \"@acme/web\": [\n".getBytes(StandardCharsets.UTF_8);
    Files.write(file, corrupt);
    String source = bare.describe() + " " + LOCKFILE;
    List<ThrowingCallable> transactions = List.of(
        () -> onBare.put("@acme/db", "2.0.0"),
        () -> onWrapped.remove("@acme/web"),
        () -> onWrapped.transaction().refresh(),
        () -> onBare.tierlock().snapshot());

    for (ThrowingCallable transaction : transactions) {
      assertThatThrownBy(transaction)
          .isExactlyInstanceOf(LockfileFormatException.class)
          .isInstanceOfSatisfying(LockfileFormatException.class, format -> {
            assertThat(format.code()).isEqualTo("lockfile_format");
            assertThat(format.source()).isEqualTo(source);
          })
          .hasMessageStartingWith("Cannot read lockfile " + source + ": ");
      assertThat(Files.readAllBytes(file)).isEqualTo(corrupt);
    }
    assertThat(onBare.tierlock().globalLock().inspect()).as("every failed run released the global lock").isEmpty();
    assertThat(filesOutsideInternal(bare.root())).containsExactly(VERDICT, LOCKFILE.value());
  }

  private Lockfile shared() {
    return TestCheckout.sharedLockfile((Datastore) bare, Namespace.NONE);
  }
}
