package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.filesOutsideInternal;
import static dev.tierlock.datastore.fs.Fixtures.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileFormatException;
import dev.tierlock.Namespace;
import dev.tierlock.PendingChange;
import dev.tierlock.SyncMode;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.TestCheckout;
import dev.tierlock.testkit.TestClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Direct mode, what the CLI runs on: checkouts (each with its own directory and its own {@link
 * FileSystemDatastore}, as on two machines) editing the lockfile of one shared directory in place.
 * Stale repository snapshots never lose or revert a peer's change, and a corrupt shared lockfile
 * stops every transaction without being touched.
 */
class FileSystemDirectModeTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);

  @TempDir
  Path temp;

  private final TestClock clock = TestClock.create();
  private FileSystemDatastore machineA;
  private FileSystemDatastore machineB;
  private TestCheckout a;
  private TestCheckout b;

  @BeforeEach
  void openCheckouts() {
    machineA = FileSystemDatastore.open(temp.resolve("shared"));
    machineB = FileSystemDatastore.open(temp.resolve("shared"));
    a = TestCheckout.builder(machineA, temp.resolve("a"), clock).build();
    b = TestCheckout.builder(machineB, temp.resolve("b"), clock).build();
  }

  @AfterEach
  void closeCheckouts() {
    a.close();
    b.close();
  }

  @Test
  void run_inDirectMode_editsTheSharedFileInPlace_andKeepsEveryLockUnderTheInternalDirectory() throws IOException {
    assertThat(a.tierlock().mode()).isEqualTo(SyncMode.DIRECT);
    assertThat(a.tierlock().syncPort().lockfilePath()).isEqualTo(machineA.pathOf(LOCKFILE));
    assertThat(a.tierlock().repository().lockPath().getParent()).isEqualTo(machineA.lockDirectory());

    TransactionResult result = a.put("@acme/web", "1.0.0");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).as("nothing to publish in direct mode").isZero();
    assertThat(versions(shared())).containsExactly(entry("@acme/web", "1.0.0"));
    assertThat(a.tierlock().cacheDirectory()).doesNotExist();
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
    assertThat(filesOutsideInternal(machineA.root())).containsExactly(LOCKFILE.value());
  }

  @Test
  void put_fromACheckoutWhoseSnapshotPredatesAPeersWrite_keepsThePeersEntry() throws IOException {
    a.put("@acme/web", "1.0.0");
    assertThat(b.tierlock().repository().snapshot().isEmpty()).as("b's snapshot predates a's write").isTrue();

    TransactionResult result = b.put("@acme/db", "2.0.0");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().names()).extracting(ExtensionName::value).containsExactly("@acme/db");
    assertThat(versions(shared())).containsExactly(entry("@acme/web", "1.0.0"), entry("@acme/db", "2.0.0"));
    assertThat(versions(b.tierlock().repository().snapshot())).isEqualTo(versions(shared()));
    assertThat(filesOutsideInternal(machineA.root())).containsExactly(LOCKFILE.value());
  }

  @Test
  void remove_fromACheckoutWhoseSnapshotPredatesAPeersAddition_doesNotRevertIt() {
    a.put("@acme/web", "1.0.0");
    b.transaction().refresh();
    a.put("@acme/db", "2.0.0");
    assertThat(versions(b.tierlock().repository().snapshot())).as("b's stale snapshot").containsOnlyKeys("@acme/web");

    TransactionResult result = b.remove("@acme/web");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().removals()).extracting(ExtensionName::value).containsExactly("@acme/web");
    assertThat(versions(shared())).containsExactly(entry("@acme/db", "2.0.0"));
  }

  @Test
  void run_onACorruptSharedLockfile_failsEveryTransactionNamingTheFile_andLeavesItByteIdentical() throws IOException {
    a.put("@acme/web", "1.0.0");
    Path file = machineA.pathOf(LOCKFILE);
    byte[] corrupt = "{\n  \"@acme/web\": [\n".getBytes(StandardCharsets.UTF_8);
    Files.write(file, corrupt);
    List<ThrowingCallable> transactions = List.of(
        () -> a.put("@acme/db", "2.0.0"),
        () -> a.remove("@acme/web"),
        () -> b.put("@acme/api", "3.0.0"),
        () -> b.transaction().refresh());

    for (ThrowingCallable transaction : transactions) {
      assertThatThrownBy(transaction)
          .isInstanceOfSatisfying(LockfileFormatException.class, format -> {
            assertThat(format.code()).isEqualTo("lockfile_format");
            assertThat(format.source()).isEqualTo(file.toString());
            assertThat(format.position()).contains("2:16");
          })
          .hasMessageStartingWith("Cannot read lockfile " + file + ": ")
          .hasMessageContaining("(at line 2, column 16)");
      assertThat(Files.readAllBytes(file)).isEqualTo(corrupt);
    }
    assertThatThrownBy(() -> TestCheckout.builder(machineA, temp.resolve("c"), clock).build())
        .isInstanceOfSatisfying(LockfileFormatException.class, e -> assertThat(e.code()).isEqualTo("lockfile_format"))
        .hasMessageStartingWith("Cannot read lockfile " + file + ": ");
    assertThat(Files.readAllBytes(file)).isEqualTo(corrupt);
    assertThat(a.tierlock().globalLock().inspect()).as("every failed run released the global lock").isEmpty();
    assertThat(filesOutsideInternal(machineA.root())).containsExactly(LOCKFILE.value());
  }

  private Lockfile shared() {
    return TestCheckout.sharedLockfile(machineA, Namespace.NONE);
  }
}
