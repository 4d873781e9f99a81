package dev.tierlock.testkit;

import dev.tierlock.CommitMode;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Checkout;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Delivery;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Injected;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Op;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Planned;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Scenario;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Step;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A scenario the transaction property found, kept as a fixed case: one checkout drops two edits of
 * one name, each for a real peer change, and reports both in one later run. Its first edit ({@code
 * put @s/k0}, told "saved, not published") is dropped by a run that dies before its write (the
 * drop is a notice in its record); its second edit, made by that dying run, is dropped by the next
 * run that dies, for another peer's change; the run after tells both, and its own removal of the
 * name lands. The property's oracle once kept one awaited report per name, and so charged the
 * second report to the removal that landed: it counts awaited reports per dropped edit now.
 */
class DropReportPerEditTest {

  private static Planned put(String name) {
    return new Planned(true, name);
  }

  private static Planned rm(String name) {
    return new Planned(false, name);
  }

  @ParameterizedTest
  @EnumSource(FakeRemote.Versions.class)
  void twoEditsOfOneName_droppedForTwoPeers_areTwoReports(FakeRemote.Versions versions) throws Exception {
    Checkout c = new Checkout(PublishFailurePolicy.THROW, 1, CommitMode.LOCKED);
    List<Step> steps = List.of(
        new Step(1, Op.RUN, List.of(put("@s/k0")), Injected.UNAVAILABLE_BURST, 1, List.of(put("@s/k1"), put("@c2/k1")), 1, Delivery.BEFORE_NEXT_SEND, 1),
        new Step(0, Op.RUN, List.of(put("@s/k0")), Injected.NONE, 1, List.of(put("@s/k1"), put("@c1/k1")), 1, Delivery.BEFORE_NEXT_SEND, 1),
        new Step(0, Op.RUN, List.of(put("@s/k0")), Injected.TIMEOUT_BEFORE_APPLY, 1, List.of(put("@s/k1"), put("@c1/k1")), 1, Delivery.BEFORE_NEXT_SEND, 1),
        new Step(2, Op.RUN, List.of(put("@s/k1")), Injected.NONE, 1, List.of(put("@s/k1"), put("@c3/k1")), 1, Delivery.BEFORE_NEXT_SEND, 1),
        new Step(1, Op.RUN, List.of(put("@s/k0")), Injected.CRASH_BEFORE_WRITE, 1, List.of(put("@s/k1"), put("@c2/k1")), 1, Delivery.BEFORE_NEXT_SEND, 1),
        new Step(0, Op.RUN, List.of(rm("@c0/k1")), Injected.NONE, 2, List.of(put("@s/k2"), put("@c2/k1")), 5, Delivery.BEFORE_NEXT_SEND, 3),
        new Step(3, Op.RUN, List.of(put("@s/k1"), put("@c3/k1")), Injected.NONE, 3, List.of(put("@s/k1"), put("@c2/k1")), 7, Delivery.LATER_STEP, 3),
        new Step(0, Op.REAPPLY, List.of(put("@s/k0")), Injected.NONE, 3, List.of(put("@s/k1"), put("@c3/k1")), 1, Delivery.BEFORE_NEXT_SEND, 2),
        new Step(1, Op.RUN, List.of(rm("@s/k1"), put("@s/k2"), rm("@s/k0")), Injected.CRASH_BEFORE_WRITE, 2, List.of(put("@s/k2"), put("@c3/k1")), 2, Delivery.NEVER, 2));
    Scenario scenario = new Scenario(List.of(c, c, c, c), 190, true, steps);
    try (FakeRemote remote = FakeRemote.builder().versions(versions).maxMetadataBytes(190).build()) {
      remote.plant(PropertyRun.LOCKFILE, LockfileTransactionPropertyTest.SEED.getBytes(StandardCharsets.UTF_8));
      // the model behind the run checks every report against the store's history, and fails it on
      // a drop it cannot justify or a required report that never comes
      new PropertyRun(remote, Files.createTempDirectory("tierlock-drop-report"), scenario).play();
    }
  }
}
