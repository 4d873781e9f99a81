package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pending record's deletions may name only extension archives: a damaged or foreign record that
 * names the shared lockfile is unreadable (a clear error that changes nothing), so no run ever
 * deletes the shared lockfile after publishing.
 */
class PendingRecordDeletionsTest {

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
}
