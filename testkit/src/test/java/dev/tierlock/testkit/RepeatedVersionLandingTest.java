package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.TransactionStatus;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a store whose versions repeat (S3 ETags, {@link FakeRemote.Versions#CONTENT_DIGEST}), a peer
 * that removes the entry a write in flight added brings the parent's version back, with its own
 * commit in the metadata. A write whose answer was lost is still judged landed, and never
 * re-applied over the peer's acknowledged removal: the checkout reads the metadata the version has
 * now (a stat) rather than trusting a not-modified answer for its cached lineage, and a third
 * checkout that publishes on the repeated version builds its lineage on that metadata too, so the
 * commits in between stay in the chain.
 */
class RepeatedVersionLandingTest {

  @TempDir Path temp;

  private TransactionFixture f;

  @BeforeEach
  void open() {
    f = TransactionFixture.open(FakeRemote.builder().versions(FakeRemote.Versions.CONTENT_DIGEST).build(), temp);
  }

  @AfterEach
  void close() {
    f.close();
  }

  /**
   * a's write lands, its answer is lost and the read-back fails; while a backs off, b (stalled
   * lease taken over) removes the name a just put, which brings the bytes, and so the version, of
   * a's parent back. a's next fetch reads the metadata that version has now, finds its commit in
   * the lineage, and leaves b's removal alone.
   */
  @Test
  void aLostAnswer_thenAPeerRemovalThatRestoresTheParentBytes_withinTheSameRun_keepsThePeersRemoval() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@s/base", "1");
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      // armed once a's write is on its way: its read-back is the next stat
      f.store().faults().beforeNext(DatastoreOperation.STAT, isLockfile(), () -> {
        f.stallPastTheLease();
        assertThat(b.remove("@s/x").status()).as("b's removal is acknowledged").isEqualTo(TransactionStatus.PUBLISHED);
      });
      f.store().faults().failNext(DatastoreOperation.STAT, isLockfile(), 1, Fault.UNAVAILABLE);
    });
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.LOSE_RESPONSE);

    a.put("@s/x", "1");

    assertThat(versions(f.shared())).as("b's acknowledged removal of @s/x, made after a's write landed")
        .containsExactly(entry("@s/base", "1"));
  }

  /**
   * The same across runs: a's run ends with its write in flight (every read-back failed); b removes
   * the name, restoring the parent's bytes and version; a's next run is answered not-modified and
   * settles the write as "not landed" from its cached lineage, re-applying it over b's removal.
   */
  @Test
  void anInFlightWrite_thenAPeerRemovalThatRestoresTheParentBytes_theNextRunKeepsThePeersRemoval() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@s/base", "1");
    f.loseTheNextLockfileAnswerAndEveryReadBack(Fault.LOSE_RESPONSE);
    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(versions(f.shared())).as("a's write landed").containsExactly(entry("@s/base", "1"), entry("@s/x", "1"));
    assertThat(b.remove("@s/x").status()).as("b's removal is acknowledged").isEqualTo(TransactionStatus.PUBLISHED);

    a.put("@s/other", "1");

    assertThat(versions(f.shared())).as("b's acknowledged removal of @s/x, made after a's write landed")
        .containsExactly(entry("@s/base", "1"), entry("@s/other", "1"));
  }

  /**
   * Even when a reads the current metadata in full: a third checkout c, whose cache still holds the
   * parent's version, publishes after b's removal restored that version; its write lands (the
   * version matches) with a lineage built on c's cached one, so the commits of a and b vanish from
   * the chain. a's next run then finds its parent's commit followed by c's and judges its write "not
   * landed": it re-applies it over b's removal.
   */
  @Test
  void anInFlightWrite_thenAPeerRemoval_thenAStaleThirdCheckoutsPublish_theNextRunKeepsThePeersRemoval() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    TestCheckout c = f.checkout("c");
    a.put("@s/base", "1");
    c.transaction().refresh();
    f.loseTheNextLockfileAnswerAndEveryReadBack(Fault.LOSE_RESPONSE);
    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(b.remove("@s/x").status()).as("b's removal is acknowledged").isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(c.put("@s/c", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(f.sharedLineage()).as("c read the metadata the repeated version has now: a's and b's commits stay in"
        + " the lineage").hasSize(4);

    a.put("@s/other", "1");

    Map<String, String> now = versions(f.shared());
    assertThat(now).as("b's acknowledged removal of @s/x, made after a's write landed")
        .doesNotContainKey("@s/x");
    assertThat(a.transaction().pending()).isEmpty();
    assertThat(f.shared().contains(name("@s/other"))).isTrue();
  }
}
