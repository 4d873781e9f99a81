package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tierlock.TransactionResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change an earlier Tierlock saved at the state directory's root without naming its namespace
 * (before records moved to {@code namespaces/<ns>/}) is never dropped in silence after an upgrade:
 * a namespaced checkout cannot tell whether it is its own, so it leaves it alone and every run says
 * it is there and what to do.
 */
class PendingRecordLocationUpgradeTest {

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
