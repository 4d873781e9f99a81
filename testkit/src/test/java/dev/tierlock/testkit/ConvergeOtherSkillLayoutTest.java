package dev.tierlock.testkit;

import static dev.tierlock.testkit.ConvergeScenarios.ALPHA;
import static dev.tierlock.testkit.ConvergeScenarios.names;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.ConvergeStatus;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkout whose layout counts other paths as skills than the installing checkout's restores an
 * extension byte for byte, and then must not call its own restore a local edit.
 */
class ConvergeOtherSkillLayoutTest {

  @TempDir
  Path temp;

  @Test
  void aRestoreIntoAnotherSkillLayout_isVerifiedLater_notReportedAsEditedLocally() {
    ConvergeFixture f = new ConvergeFixture(FakeRemote.create(), temp);
    try {
      f.registry().publish(ALPHA, "1.0.0", TestArchives.extension(ALPHA, "1.0.0").file("lib/main.txt", "main")
          .file("skills/a.md", "a").build());
      ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED,
          l -> l.withSkills(p -> p.startsWith("skills/")));
      a.install(ALPHA + "@1.0.0");
      ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
      assertThat(names(b.converge().restored())).containsExactly(ALPHA);
      assertThat(InstallFixture.tree(b.root(ALPHA))).isEqualTo(InstallFixture.tree(a.root(ALPHA)));

      ConvergeReport full = b.converger().convergeFully();

      assertThat(full.restored()).isEmpty();
      assertThat(full.warnings()).as("B's files are the archive's own, as B's last pass restored them").isEmpty();
      assertThat(names(full.verified())).containsExactly(ALPHA);
      assertThat(b.converger().status()).extracting(ConvergeStatus::state)
          .containsExactly(ConvergeStatus.State.VERIFIED);
    } finally {
      f.close();
      f.datastore().close();
    }
  }
}
