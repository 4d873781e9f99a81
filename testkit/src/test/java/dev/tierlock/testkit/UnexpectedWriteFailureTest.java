package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionStatus;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lockfile write that fails in an unforeseen way once it is on its way (a bug in a wrapper, an
 * unchecked exception from a client library after the request went out) may have landed: it is
 * kept in flight and settled by the lineage, never reported as unpublished and replayed over a
 * peer's change made on top of it.
 */
class UnexpectedWriteFailureTest {

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
  void anUncheckedFailureAfterTheWriteLanded_isAWriteInFlight_andThePeersLaterRemovalIsKept() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@s/base", "1");
    f.store().faults().afterNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      throw new IllegalStateException("a wrapper failed after the request went out");
    });

    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class)
        .hasRootCauseMessage("a wrapper failed after the request went out");

    assertThat(a.transaction().pending()).hasValueSatisfying(p -> assertThat(p.state())
        .isEqualTo(PendingChange.State.IN_FLIGHT));
    assertThat(versions(f.shared())).as("it landed").containsEntry("@s/x", "1");
    assertThat(b.remove("@s/x").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(a.put("@s/y", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).as("b's removal, made after a's write landed")
        .containsExactly(entry("@s/base", "1"), entry("@s/y", "1"));
  }
}
