package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.Namespace;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectMetadata;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The helper that plays one machine: puts and removes, reads of both copies, settings, and a restart. */
class TestCheckoutTest {

  private final FakeRemote remote = FakeRemote.create();
  private final TestClock clock = TestClock.create();

  @TempDir
  Path dir;

  @AfterEach
  void closeRemote() {
    remote.close();
  }

  @Test
  void putAndRemove_publish_andBothCopiesShowIt() {
    try (TestCheckout a = TestCheckout.builder(remote, dir.resolve("a"), clock).build();
        TestCheckout b = TestCheckout.builder(remote, dir.resolve("b"), clock).build()) {
      assertThat(a.put("@acme/web", "1.0.0").status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(b.put("@acme/db", "2.0.0").status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(a.remove("@acme/db").status()).isEqualTo(TransactionStatus.PUBLISHED);

      assertThat(a.shared().names()).containsExactly(ExtensionName.of("@acme/web"));
      assertThat(a.local()).isEqualTo(a.shared());
      assertThat(b.local().names()).as("b's cache is as b last left it")
          .containsExactly(ExtensionName.of("@acme/web"), ExtensionName.of("@acme/db"));
      assertThat(a.entry("3").pulledAt()).isEqualTo("2026-01-01T00:00:00.000Z");
    }
  }

  @Test
  void commitIdsAndNamespace_areThoseSet() {
    AtomicInteger n = new AtomicInteger();
    try (TestCheckout a = TestCheckout.builder(remote, dir.resolve("a"), clock).namespace(Namespace.of("team"))
        .commitIds(() -> "a-" + n.incrementAndGet()).build()) {
      a.put("@acme/web", "1.0.0");

      assertThat(remote.peekObject(Namespace.of("team").key(dev.tierlock.TierPath.LOCKFILE)).orElseThrow().metadata()
          .get(ObjectMetadata.COMMIT_ID)).contains("a-1");
      assertThat(TestCheckout.sharedLockfile(remote, Namespace.of("team")).names())
          .containsExactly(ExtensionName.of("@acme/web"));
    }
  }

  @Test
  void maxPublishAttempts_andReopen_keepTheSettings_andTheCheckoutsFilesOnly() {
    TestCheckout a = TestCheckout.builder(remote, dir.resolve("a"), clock).maxPublishAttempts(1).build();
    remote.faults().failNext(DatastoreOperation.WRITE, k -> k.value().endsWith("upstream_extensions.json"), 1,
        Fault.LOSE_RESPONSE).failNext(DatastoreOperation.STAT, 1, Fault.UNAVAILABLE);
    assertThatThrownBy(() -> a.put("@acme/web", "1.0.0")).as("one attempt only")
        .isInstanceOf(LockfileOutcomeUnknownException.class);

    try (TestCheckout restarted = a.reopen()) {
      assertThat(restarted.directory()).isEqualTo(a.directory());
      assertThat(restarted.tierlock()).isNotSameAs(a.tierlock());
      assertThat(restarted.transaction().pending()).as("the record is the checkout's file")
          .hasValueSatisfying(p -> assertThat(p.state()).isEqualTo(PendingChange.State.IN_FLIGHT));
      assertThat(restarted.transaction().run(tx -> { }).status()).isEqualTo(TransactionStatus.NO_CHANGE);
      assertThat(restarted.shared().names()).containsExactly(ExtensionName.of("@acme/web"));
    }
  }

  @Test
  void overwriteLocal_isNeverBelievedByAReopenedCheckout() {
    TestCheckout a = TestCheckout.builder(remote, dir.resolve("a"), clock).build();
    a.put("@acme/web", "1.0.0");
    a.overwriteLocal(dev.tierlock.Lockfile.EMPTY.with(ExtensionName.of("@acme/planted"), a.entry("9")));
    assertThat(a.local().names()).containsExactly(ExtensionName.of("@acme/planted"));

    try (TestCheckout restarted = a.reopen()) {
      assertThat(restarted.transaction().refresh().lockfile().names()).containsExactly(ExtensionName.of("@acme/web"));
      assertThat(restarted.local().names()).containsExactly(ExtensionName.of("@acme/web"));
    }
  }
}
