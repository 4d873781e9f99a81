package dev.tierlock.testkit;

import static dev.tierlock.testkit.ConvergeScenarios.ALPHA;
import static dev.tierlock.testkit.ConvergeScenarios.BETA;
import static dev.tierlock.testkit.ConvergeScenarios.archive;
import static dev.tierlock.testkit.ConvergeScenarios.names;
import static dev.tierlock.testkit.ConvergeScenarios.publish;
import static dev.tierlock.testkit.InstallFixture.tree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Adversarial cases against the convergence engine: each fails when the engine breaks a promise. */
class ConvergeAttackTest {

  private static final String TOOL = "@acme/tool";
  private static final String PLUGIN = "@acme/tool/plugin";
  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);

  @TempDir Path temp;
  private ConvergeFixture f;

  @BeforeEach
  void open() {
    f = new ConvergeFixture(FakeRemote.create(), temp);
  }

  @AfterEach
  void close() {
    f.close();
  }

  /** B installs ALPHA 2.0.0 while every lockfile write fails: the change is kept pending, the files stay. */
  private void installPendingUpgrade(ConvergeFixture.Peer b) {
    b.checkout().store().faults().failNext(DatastoreOperation.WRITE, LOCKFILE::equals, 1000, Fault.UNAVAILABLE);
    Throwable failure = catchThrowable(() -> b.checkout().installer()
        .install(InstallRequest.parse(ALPHA + "@2.0.0"), Catalog.NONE));
    b.checkout().store().faults().clear();
    assertThat(failure).as("the publish failed").isNotNull();
    assertThat(b.checkout().tierlock().transaction().pending()).as("the change is kept pending").isPresent();
    assertThat(tree(b.root(ALPHA))).as("the new files stay").containsKey("lib/only-2.0.0.txt");
  }

  // ---- a checkout's own pending change ----

  @Test
  void aPendingUpgradeOfThisCheckout_isNotRolledBack_byConverge() {
    publish(f, ALPHA, "1.0.0");
    publish(f, ALPHA, "2.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.CONFIGURED);
    assertThat(names(b.converge().restored())).containsExactly(ALPHA);
    installPendingUpgrade(b);
    TreeMap<String, String> mine = tree(b.root(ALPHA));

    ConvergeReport gated = b.converge();
    ConvergeReport full = b.converger().convergeFully();

    assertThat(gated.restored()).isEmpty();
    assertThat(full.restored()).isEmpty();
    assertThat(tree(b.root(ALPHA))).as("the pending 2.0.0 stays").isEqualTo(mine);
  }

  @Test
  void aPendingRecordThatCannotBeRead_neverMakesConvergeUndoThisCheckoutsUpgrade() throws Exception {
    publish(f, ALPHA, "1.0.0");
    publish(f, ALPHA, "2.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.CONFIGURED);
    assertThat(names(b.converge().restored())).containsExactly(ALPHA);
    installPendingUpgrade(b);
    TreeMap<String, String> mine = tree(b.root(ALPHA));
    assertThat(b.converge().restored()).as("the pending change is seen").isEmpty();
    Path record = b.checkout().tierlock().transaction().pending().orElseThrow().record();
    assertThat(record).exists();
    Files.writeString(record, "{ torn", StandardCharsets.UTF_8);  // a torn or corrupt record

    ConvergeReport r = b.converge();

    assertThat(r.restored()).as("an unreadable pending change may hold this checkout's upgrade: nothing is"
        + " swapped back to the shared pin; report: %s", r).isEmpty();
    assertThat(tree(b.root(ALPHA))).as("the locally installed 2.0.0 stays").isEqualTo(mine);
  }

  @Test
  void aJournalThatNamesNoExtension_blocksTheSwap_saysWhy_andNeverThrows() throws Exception {
    publish(f, ALPHA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.CONFIGURED);
    Path staging = b.checkout().layout().pulledRoot().resolve(".tierlock-staging")
        .resolve("0f8fad5b-d9cb-469f-a165-70867728950e");
    Files.createDirectories(staging);
    Files.writeString(staging.resolve("journal.json"), "{ torn", StandardCharsets.UTF_8);  // any extension's

    ConvergeReport blocked = b.converge();

    assertThat(blocked.outcome()).isEqualTo(ConvergeReport.Outcome.BLOCKED);
    assertThat(blocked.restored()).isEmpty();
    assertThat(blocked.warnings()).anySatisfy(w -> assertThat(w)
        .contains("an interrupted install's journal that cannot be read is left in staging, so nothing was swapped")
        .contains(staging.resolve("journal.json").toString()));
    assertThat(b.root(ALPHA)).as("nothing swapped while the journal may be its").doesNotExist();
    assertThat(InstallFixture.staging(b.checkout())).as("no prepared restore left behind")
        .containsExactly("0f8fad5b-d9cb-469f-a165-70867728950e");

    deleteTree(staging);
    ConvergeReport after = b.converger().convergeFully();

    assertThat(after.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(names(after.restored())).containsExactly(ALPHA);
  }

  // ---- nested extensions ----

  @Test
  void anOuterAndItsNestedExtension_bothDropped_areBothRemoved() {
    f.registry().publish(TOOL, "1.0.0", archive(TOOL, "1.0.0"));
    f.registry().publish(PLUGIN, "0.1.0", TestArchives.extension(PLUGIN, "0.1.0").file("p.txt", "p").build());
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(TOOL + "@1.0.0");
    a.install(PLUGIN + "@0.1.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(names(b.converge().restored())).containsExactly(TOOL, PLUGIN);
    a.remove(PLUGIN);
    a.remove(TOOL);

    ConvergeReport r = b.converge();

    assertThat(r.warnings()).as("nothing was edited on b: %s", r).isEmpty();
    assertThat(names(r.removed())).containsExactlyInAnyOrder(TOOL, PLUGIN);
    assertThat(Files.exists(b.root(TOOL))).as("the outer is gone").isFalse();
  }

  @Test
  void aNestedExtensionDropped_doesNotMakeItsOuterLookEdited() {
    f.registry().publish(TOOL, "1.0.0", archive(TOOL, "1.0.0"));
    f.registry().publish(PLUGIN, "0.1.0", TestArchives.extension(PLUGIN, "0.1.0").file("p.txt", "p").build());
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(TOOL + "@1.0.0");
    a.install(PLUGIN + "@0.1.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(names(b.converge().restored())).containsExactly(TOOL, PLUGIN);
    a.remove(PLUGIN);

    ConvergeReport r = b.converge();

    assertThat(names(r.removed())).containsExactly(PLUGIN);
    assertThat(r.warnings()).as("the outer was not edited: %s", r).isEmpty();
    assertThat(names(r.verified())).containsExactly(TOOL);
    assertThat(Files.exists(b.root(PLUGIN))).isFalse();
    assertThat(tree(b.root(TOOL))).isEqualTo(tree(a.root(TOOL)));
  }

  @Test
  void anOuterDropped_whileItsNestedStaysPinned_removesOnlyTheOuter() {
    f.registry().publish(TOOL, "1.0.0", archive(TOOL, "1.0.0"));
    f.registry().publish(PLUGIN, "0.1.0", TestArchives.extension(PLUGIN, "0.1.0").file("p.txt", "p").build());
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(TOOL + "@1.0.0");
    a.install(PLUGIN + "@0.1.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(names(b.converge().restored())).containsExactly(TOOL, PLUGIN);
    TreeMap<String, String> plugin = tree(b.root(PLUGIN));
    a.remove(TOOL);

    ConvergeReport r = b.converge();

    assertThat(names(r.removed())).containsExactly(TOOL);
    assertThat(tree(b.root(PLUGIN))).as("the nested one survives").isEqualTo(plugin);
    assertThat(b.converger().convergeFully().restored()).isEmpty();
  }

  // ---- unrestorable reporting ----

  @Test
  void anUnrestorableEntry_isReportedAsSuchByStatus() {
    byte[] alpha = publish(f, ALPHA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    f.datastore().delete(ConvergeFixture.archiveKey(ALPHA, alpha), dev.tierlock.spi.WriteCondition.none());
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(b.converge().unrestorable()).extracting(ConvergeReport.Unrestorable::reason)
        .containsExactly(ConvergeReport.Unrestorable.Reason.ARCHIVE_MISSING);
    assertThat(b.converger().status()).singleElement().extracting(s -> s.state())
        .isEqualTo(dev.tierlock.install.ConvergeStatus.State.UNRESTORABLE);
    assertThat(b.converge().outcome()).isEqualTo(ConvergeReport.Outcome.UNCHANGED);
  }

  // ---- the re-check under the lock ----

  @Test
  void anInstallByAnotherTierlockOfThisCheckout_betweenPlanAndSwap_isNotOverwrittenWithTheOldPin() {
    byte[] alpha1 = publish(f, ALPHA, "1.0.0");
    publish(f, ALPHA, "2.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    // another process on the same checkout (a CLI next to the embedder): its own Tierlock
    ConvergeFixture.Peer other = f.peer("b", ConvergeFixture.Registry.CONFIGURED);
    ObjectKey key = ConvergeFixture.archiveKey(ALPHA, alpha1);
    b.checkout().store().faults().afterNext(DatastoreOperation.OPEN_STREAM, key::equals,
        () -> other.install(ALPHA + "@2.0.0"));

    ConvergeReport r = b.converge();

    assertThat(f.install().shared().entry(InstallFixture.name(ALPHA)).orElseThrow().version()).isEqualTo("2.0.0");
    assertThat(tree(b.root(ALPHA))).as("the published 2.0.0 the other process just installed stays; report %s", r)
        .containsKey("lib/only-2.0.0.txt");
  }

  // ---- one pass in flight per process ----

  @Test
  void aFullPassAskedForWhileAGatedPassIsInFlight_stillRetriesTheUnrestorable() throws Exception {
    byte[] alpha = publish(f, ALPHA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ObjectKey key = ConvergeFixture.archiveKey(ALPHA, alpha);
    f.datastore().delete(key, dev.tierlock.spi.WriteCondition.none());
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(b.converge().unrestorable()).hasSize(1);
    f.datastore().write(key, dev.tierlock.spi.ObjectBody.of(alpha), dev.tierlock.spi.WriteCondition.none(),
        dev.tierlock.spi.ObjectMetadata.EMPTY);  // a peer stores it again
    CountDownLatch reading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    b.checkout().store().faults().beforeNext(DatastoreOperation.READ, LOCKFILE::equals, () -> {
      reading.countDown();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    AtomicReference<ConvergeReport> gated = new AtomicReference<>();
    AtomicReference<ConvergeReport> full = new AtomicReference<>();
    Thread t1 = new Thread(() -> gated.set(b.converge()));
    Thread t2 = new Thread(() -> full.set(b.converger().convergeFully()), "full pass");
    try {
      t1.start();
      assertThat(reading.await(30, TimeUnit.SECONDS)).isTrue();
      t2.start();
      // the interleaving under test: the full pass joins the gated one, still in its read (the checkout's
      // queueing hook says so); the test fails here, not later, if it is not reached
      f.install().queued().await(t2);
    } finally {
      release.countDown();
    }
    t1.join(30_000);
    t2.join(30_000);

    assertThat(gated.get().outcome()).isEqualTo(ConvergeReport.Outcome.UNCHANGED);
    assertThat(names(full.get().restored())).as("convergeFully() retries what is unrestorable, even when it meets"
        + " a gated pass in flight; it got %s", full.get()).containsExactly(ALPHA);
  }

  // ---- backoff ----

  @Test
  void aRetryScheduledUnderAClockThatWasAhead_waitsNoLongerThanAnHourOnceTheClockIsRight() {
    byte[] alpha = publish(f, ALPHA, "1.0.0");
    publish(f, BETA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    Instant right = f.clock().instant();
    f.clock().advance(Duration.ofDays(30));  // the host's clock ran a month ahead
    ObjectKey key = ConvergeFixture.archiveKey(ALPHA, alpha);
    b.checkout().store().faults().failNext(DatastoreOperation.OPEN_STREAM, key::equals, 1, Fault.UNAVAILABLE);
    assertThat(b.converge().pending()).hasSize(1);
    f.clock().set(right.plus(Duration.ofHours(2)));  // corrected: two hours after the failure, really
    a.install(BETA + "@1.0.0");

    ConvergeReport r = b.converge();

    assertThat(names(r.restored())).as("no retry waits more than an hour from now: %s", r).contains(ALPHA);
  }

  // ---- interruption ----

  @Test
  void aPassOnAnInterruptedThread_neverThrows_keepsTheFlag_andAMissedRestoreIsNotBackedOff() {
    publish(f, ALPHA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    ConvergeReport interrupted;
    boolean flag;
    Thread.currentThread().interrupt();
    try {
      interrupted = b.converge();
    } finally {
      flag = Thread.interrupted();
    }
    assertThat(flag).as("the interrupt is kept").isTrue();
    assertThat(interrupted).isNotNull();

    ConvergeReport next = b.converge();

    assertThat(names(next.restored())).as("a cancelled pass is not a failed attempt (after %s): %s", interrupted, next)
        .containsExactly(ALPHA);
  }

  // ---- symlinks ----

  @Test
  void anExtensionRootReplacedByALink_neverLosesTheFilesTheLinkPointsTo() throws Exception {
    publish(f, ALPHA, "1.0.0");
    publish(f, ALPHA, "2.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(names(b.converge().restored())).containsExactly(ALPHA);
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Path moved = outside.resolve("alpha");
    Files.move(b.root(ALPHA), moved);
    Files.createSymbolicLink(b.root(ALPHA), moved);
    TreeMap<String, String> theirs = tree(moved);
    a.install(ALPHA + "@2.0.0");

    ConvergeReport upgrade = b.converge();
    a.remove(ALPHA);
    ConvergeReport removal = b.converge();

    assertThat(tree(moved)).as("files outside the checkout are never deleted (%s, then %s)", upgrade, removal)
        .isEqualTo(theirs);
  }

  // ---- poller ----

  @Test
  void thePoller_whenTheLockfileIsDeletedAndBack_doesNotReloadForNothing() {
    publish(f, ALPHA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(names(b.converge().restored())).containsExactly(ALPHA);
    List<ConvergeReport> reloads = new ArrayList<>();
    byte[] bytes = f.install().shared().bytes();
    try (dev.tierlock.install.ConvergePoller poller = b.converger().poller(
        dev.tierlock.install.ConvergePoller.Options.builder(reloads::add).build())) {
      assertThat(poller.poll()).isEqualTo(dev.tierlock.install.ConvergePoller.PollResult.UNCHANGED);
      f.datastore().delete(LOCKFILE, dev.tierlock.spi.WriteCondition.none());
      dev.tierlock.install.ConvergePoller.PollResult gone = poller.poll();
      f.datastore().write(LOCKFILE, dev.tierlock.spi.ObjectBody.of(bytes), dev.tierlock.spi.WriteCondition.none(),
          dev.tierlock.spi.ObjectMetadata.EMPTY);
      dev.tierlock.install.ConvergePoller.PollResult back = poller.poll();

      assertThat(reloads).as("nothing the embedder loads changed (%s, %s): %s", gone, back, reloads).isEmpty();
    }
  }

  // ---- restoreGeneration ----

  @Test
  void aStateThatTurnsInvalid_neverLetsTheRestoreGenerationRepeat_soThePollerStillReloads() throws Exception {
    publish(f, ALPHA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    ConvergeReport boot = b.converge();
    assertThat(names(boot.restored())).containsExactly(ALPHA);
    List<ConvergeReport> reloads = new ArrayList<>();
    try (dev.tierlock.install.ConvergePoller poller = b.converger().poller(
        dev.tierlock.install.ConvergePoller.Options.builder(reloads::add).build())) {
      assertThat(poller.poll()).isEqualTo(dev.tierlock.install.ConvergePoller.PollResult.UNCHANGED);
      // the files go missing and the state file is torn (a crash, a disk full)
      deleteTree(b.root(ALPHA));
      Files.writeString(b.converger().stateFile(), "{ torn", StandardCharsets.UTF_8);

      dev.tierlock.install.ConvergePoller.PollResult r = poller.poll();

      assertThat(tree(b.root(ALPHA))).as("the full pass restored it").isEqualTo(tree(a.root(ALPHA)));
      assertThat(reloads).as("files changed under the embedder (%s, generation before %d), so it is told to reload",
          r, boot.restoreGeneration()).hasSize(1);
    }
  }

  private static void deleteTree(Path root) throws java.io.IOException {
    try (java.util.stream.Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  // ---- bad input ----

  @Test
  void anEntryHandEditedIntoAForeignMember_isNotTakenForARemoval() {
    publish(f, ALPHA, "1.0.0");
    publish(f, BETA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    a.install(BETA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(names(b.converge().restored())).containsExactly(ALPHA, BETA);
    TreeMap<String, String> alpha = tree(b.root(ALPHA));
    String text = f.install().shared().text();
    int at = text.indexOf("\"" + ALPHA + "\"");
    assertThat(at).isNotNegative();
    int open = text.indexOf('{', at);
    int depth = 0;
    int end = open;
    for (int i = open; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '{') {
        depth++;
      } else if (c == '}' && --depth == 0) {
        end = i + 1;
        break;
      }
    }
    // a hand edit gone wrong: the entry no longer matches the schema, so it is kept as a foreign member
    String edited = text.substring(0, open) + "{\"version\": 1}" + text.substring(end);
    f.datastore().write(LOCKFILE, dev.tierlock.spi.ObjectBody.of(edited.getBytes(StandardCharsets.UTF_8)),
        dev.tierlock.spi.WriteCondition.none(), dev.tierlock.spi.ObjectMetadata.EMPTY);
    assertThat(f.install().shared().foreign()).as("the edit made a foreign member").isNotEmpty();

    ConvergeReport r = b.converge();

    assertThat(r.removed()).as("a malformed entry is bad input, not an instruction to delete: %s", r).isEmpty();
    assertThat(tree(b.root(ALPHA))).isEqualTo(alpha);
  }

  // ---- caps ----

  @Test
  void anArchiveOverTheCaps_isUnrestorable_touchesNothing_andIsNotRetriedByAGatedPass() {
    publish(f, ALPHA, "1.0.0");
    publish(f, ALPHA, "2.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(names(b.converge().restored())).containsExactly(ALPHA);
    TreeMap<String, String> v1 = tree(b.root(ALPHA));
    dev.tierlock.install.Converger tight = dev.tierlock.install.Converger
        .builder(b.checkout().tierlock(), b.checkout().layout()).clock(f.clock())
        .archiveLimits(dev.tierlock.archive.ArchiveLimits.DEFAULTS.withMaxEntries(1)).build();
    a.install(ALPHA + "@2.0.0");

    ConvergeReport r = tight.converge();

    assertThat(r.unrestorable()).extracting(ConvergeReport.Unrestorable::reason)
        .containsExactly(ConvergeReport.Unrestorable.Reason.LIMIT);
    assertThat(r.restored()).isEmpty();
    assertThat(tree(b.root(ALPHA))).isEqualTo(v1);
    assertThat(InstallFixture.staging(b.checkout())).isEmpty();
    f.clock().advance(Duration.ofHours(3));
    assertThat(tight.converge().outcome()).isEqualTo(ConvergeReport.Outcome.UNCHANGED);
    assertThat(b.converger().convergeFully().restored()).as("with the default caps it restores")
        .extracting(n -> n.value()).containsExactly(ALPHA);
  }

  // ---- constraint pins ----

  @Test
  void anInstallByConstraint_recordsTheExactVersion_andConvergesAsAnExactPin() {
    publish(f, ALPHA, "1.0.0");
    publish(f, ALPHA, "1.1.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@^1");
    String pinned = f.install().shared().entry(InstallFixture.name(ALPHA)).orElseThrow().version();
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(names(b.converge().restored())).containsExactly(ALPHA);
    ConvergeReport full = b.converger().convergeFully();
    assertThat(full.restored()).isEmpty();
    assertThat(names(full.verified())).containsExactly(ALPHA);
    assertThat(b.converger().status()).singleElement().extracting(s -> s.state())
        .isEqualTo(dev.tierlock.install.ConvergeStatus.State.VERIFIED);
    System.out.println("constraint pin recorded as " + pinned);
  }

  /** Rewrites the entry of {@code name} to pin the constraint {@code constraint}, its archive and files unchanged. */
  private void pinConstraint(ConvergeFixture.Peer writer, String name, String constraint) {
    dev.tierlock.LockfileEntry e = f.install().shared().entry(InstallFixture.name(name)).orElseThrow();
    writer.checkout().tierlock().transaction().run(tx -> tx.put(InstallFixture.name(name),
        e.toBuilder().version(constraint).build()));
  }

  @Test
  void aConstraintPinEntry_isRestoredOnce_thenVerified_neverSwappedAgain() {
    publish(f, ALPHA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    pinConstraint(a, ALPHA, "^1");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);

    assertThat(names(b.converge().restored())).containsExactly(ALPHA);
    ConvergeReport full = b.converger().convergeFully();

    assertThat(full.restored()).isEmpty();
    assertThat(names(full.verified())).containsExactly(ALPHA);
    assertThat(tree(b.root(ALPHA))).isEqualTo(tree(a.root(ALPHA)));
  }

  @Test
  void aLocalEditUnderAConstraintPin_isKeptOnTheFirstRun_likeOneUnderAnExactPin() throws Exception {
    publish(f, ALPHA, "1.0.0");
    publish(f, BETA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    a.install(BETA + "@1.0.0");
    pinConstraint(a, ALPHA, "^1");
    // a checkout that installed both itself (before convergence existed) and edited both
    ConvergeFixture.Peer c = f.peer("c", ConvergeFixture.Registry.CONFIGURED);
    c.install(ALPHA + "@1.0.0");
    c.install(BETA + "@1.0.0");
    pinConstraint(c, ALPHA, "^1");
    Files.writeString(c.root(ALPHA).resolve("lib/main.txt"), "edited on c");
    Files.writeString(c.root(BETA).resolve("lib/main.txt"), "edited on c");
    TreeMap<String, String> alpha = tree(c.root(ALPHA));
    TreeMap<String, String> beta = tree(c.root(BETA));

    ConvergeReport first = c.converge();

    assertThat(tree(c.root(BETA))).as("the exact pin's edit is kept: %s", first).isEqualTo(beta);
    assertThat(tree(c.root(ALPHA))).as("the constraint pin's edit, at a version it accepts, is kept too: %s", first)
        .isEqualTo(alpha);
  }
}
