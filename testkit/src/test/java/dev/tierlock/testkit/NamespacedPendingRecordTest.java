package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.Namespace;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pending record is bound to the lockfile it was made for: one checkout used with two
 * namespaces (the CLI's {@code --checkout} and {@code --namespace} are independent) keeps one
 * record per namespace, so a change saved for one is published there and never into the other.
 */
@ExtendWith(FakeRemoteExtension.class)
class NamespacedPendingRecordTest {

  @TempDir Path temp;

  @Test
  void aChangeSavedForOneNamespace_isNeverPublishedIntoAnotherNamespaceOfTheSameCheckout(FakeRemote remote,
      TestClock clock) {
    Path checkout = temp.resolve("checkout");
    Namespace team = Namespace.of("team");
    Namespace other = Namespace.of("other");
    try (TestCheckout teamRun = TestCheckout.builder(remote, checkout, clock).namespace(team).build();
        TestCheckout otherRun = TestCheckout.builder(remote, checkout, clock).namespace(other).build()) {
      remote.faults().failNext(DatastoreOperation.WRITE, team.key(dev.tierlock.TierPath.LOCKFILE)::equals, 50,
          Fault.UNAVAILABLE);
      assertThatThrownBy(() -> teamRun.put("@s/team-only", "1"))
          .isInstanceOf(ManagedConfigUnpublishedException.class)
          .hasMessageContaining("the next transaction on this checkout publishes it");
      remote.faults().clear();

      otherRun.put("@s/other-only", "1");
      teamRun.put("@s/later", "1");

      assertThat(otherRun.shared().names()).as("the other namespace's lockfile holds only its own change")
          .containsExactly(ExtensionName.of("@s/other-only"));
      assertThat(teamRun.shared().names()).as("the team namespace's saved change is published there")
          .contains(ExtensionName.of("@s/team-only"));
    }
  }
}
