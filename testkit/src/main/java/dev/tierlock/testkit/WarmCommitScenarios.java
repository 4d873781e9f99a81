package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.LOCKFILE_KEY;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.CommitMode;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.StoredObject;
import java.util.List;

/**
 * A warm optimistic commit on the store under test, for {@link SyncPortContract}: one write,
 * conditional on the cached version, with no read first, on every store; and the lost answers it
 * could confuse when the store's versions repeat (a peer put the cached bytes back with commits of
 * its own in the metadata, which the write then replaces). Not thread-safe: one per test.
 */
final class WarmCommitScenarios {

  /** The lineage element a write sent on a head it did not read writes after its own id. */
  static final String GAP = "~";

  private final TransactionFixture f;
  private final CountingDatastore counted;

  WarmCommitScenarios(TransactionFixture fixture) {
    this.f = fixture;
    this.counted = CountingDatastore.wrap(fixture.store());
  }

  private TestCheckout optimistic(String name) {
    return f.register(f.builder(name, counted).commitMode(CommitMode.OPTIMISTIC).build());
  }

  /** Whether a write on a cached version may land on another lineage: versions repeat and do not bind the metadata. */
  private boolean gaps() {
    Datastore store = f.store();
    return store.versionsRepeat() && !store.versionsBindMetadata();
  }

  void anOptimisticWarmCommit_isOneWrite_conditionalOnTheCachedVersion() {
    TestCheckout a = optimistic("a");
    a.put("@s/x", "1");
    StoredObject cached = f.sharedObject().orElseThrow();
    String first = cached.metadata().get(ObjectMetadata.COMMIT_ID).orElseThrow();
    counted.reset();
    f.store().log().clear();

    TransactionResult result = a.put("@s/y", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(1);
    // where a version can come back with another lineage, a stat first keeps the lineage exact
    assertThat(counted.counts()).as("calls of a warm commit").containsEntry(DatastoreOperation.WRITE, 1L);
    assertThat(counted.total()).as("calls of a warm commit").isEqualTo(gaps() ? 2 : 1);
    assertThat(f.store().log().entries().stream().filter(e -> e.condition().startsWith("mustMatch")).toList())
        .singleElement().satisfies(e -> {
          assertThat(e.target()).isEqualTo(LOCKFILE_KEY.value());
          assertThat(e.condition()).isEqualTo("mustMatch(" + cached.version().value() + ")");
        });
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"), entry("@s/y", "1"));
    List<String> lineage = f.sharedLineage();
    assertThat(lineage).as("versions repeat %s, bind the metadata %s", f.store().versionsRepeat(),
        f.store().versionsBindMetadata()).isEqualTo(List.of(lineage.get(0), first));
    assertThat(a.cachePath()).hasBinaryContent(f.sharedBytes().orElseThrow());
  }

  /**
   * p's write lands but its answer is lost (and every read-back); q removes what it put, which
   * brings back the bytes of the version a has cached; a's warm commit is sent on that version.
   * Where versions are a digest of the bytes alone it lands, replacing the lineage that held p's
   * and q's commits. p's next run must not judge its write "not landed" and put it back over q's
   * acknowledged removal.
   */
  void aPeersLostAnswer_thenItsUndoing_thenAWarmCommit_neverPutsTheUndoneChangeBack() {
    TestCheckout p = f.checkout("p");
    TestCheckout a = optimistic("a");
    a.put("@s/base", "1");
    inFlightThenUndone(p);

    assertThat(a.put("@s/y", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);

    peerSettlesKeeping(p, "@s/y", "1");
  }

  /**
   * As above, and then r removes what a put: the bytes, and the version, p's write was conditioned
   * on are current once more. p's next run must not judge its write "not landed yet" and send it
   * again.
   */
  void aPeersLostAnswer_thenItsUndoing_thenAWarmCommitUndoneToo_neverSendsTheUndoneChangeAgain() {
    TestCheckout p = f.checkout("p");
    TestCheckout a = optimistic("a");
    TestCheckout r = f.checkout("r");
    a.put("@s/base", "1");
    inFlightThenUndone(p);
    assertThat(a.put("@s/y", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);

    assertThat(r.remove("@s/y").status()).isEqualTo(TransactionStatus.PUBLISHED);

    peerSettlesKeeping(p, "@s/base", "1");
  }

  /**
   * The warm commit's own answer is lost, after a peer put the cached bytes back: landed, it is
   * found in the lineage; not landed, the parent's bytes are current and it is sent once more. Either
   * way it is published exactly once, and the peer's removal stays.
   *
   * @param fault {@link Fault#LOSE_RESPONSE} (the write lands) or {@link Fault#TIMEOUT_BEFORE_APPLY}
   */
  void aWarmCommitsLostAnswer_overBytesAPeerPutBack_isPublishedOnce(Fault fault) {
    TestCheckout a = optimistic("a");
    TestCheckout p = f.checkout("p");
    a.put("@s/base", "1");
    assertThat(p.put("@s/x", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(p.remove("@s/x").status()).isEqualTo(TransactionStatus.PUBLISHED);
    f.store().faults().failNext(DatastoreOperation.WRITE, TransactionFixture.isLockfile(), 1, fault);
    counted.reset();

    TransactionResult result = a.put("@s/y", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(a.transaction().pending()).isEmpty();
    assertThat(versions(f.shared())).containsExactly(entry("@s/base", "1"), entry("@s/y", "1"));
    assertThat(f.sharedLineage()).as("no write leaves a gap").doesNotContain(GAP);
  }

  /** p's write lands, its answer and every read-back are lost; q (locked, reading the head) removes what it put. */
  private void inFlightThenUndone(TestCheckout p) {
    TestCheckout q = f.checkout("q");
    f.loseTheNextLockfileAnswerAndEveryReadBack(Fault.LOSE_RESPONSE);
    assertThatThrownBy(() -> p.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(versions(f.shared())).as("p's write landed").containsEntry("@s/x", "1");
    assertThat(q.remove("@s/x").status()).as("q's removal is acknowledged").isEqualTo(TransactionStatus.PUBLISHED);
  }

  /**
   * p's next run, then what it left: q's removal stays; where the warm write replaced the lineage (a
   * gap), p cannot prove its write landed or not and is told so, its change kept; elsewhere the
   * lineage shows it landed.
   */
  private void peerSettlesKeeping(TestCheckout p, String name, String version) {
    RuntimeException told = null;
    try {
      p.put("@s/other", "1");
    } catch (LockfileOutcomeUnknownException e) {
      told = e;
    }
    assertThat(versions(f.shared())).as("q's acknowledged removal of @s/x, made after p's write landed")
        .doesNotContainKey("@s/x").containsEntry(name, version);
    assertThat(told).as("the lineage proves p's write landed").isNull();
    assertThat(p.transaction().pending()).isEmpty();
  }
}
