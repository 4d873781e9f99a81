package dev.tierlock.install;

import static dev.tierlock.install.SwapFixture.TOOLS;
import static dev.tierlock.install.SwapFixture.V1_SUM;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Adversarial review (review4): recovery attacks that fail on the current code. */
class RecoveryAttackTest {

  @TempDir
  Path dir;

  /**
   * A fresh install of @acme/tools dies right after its journal is written (phase staged, liveExisted
   * false, hasNew true, nothing moved, new/ never filled). Before recovery runs, the extension root
   * comes to exist by other means (the original tool, an operator untarring v1, a checkout restored
   * from backup). Recovery's rollback takes "not existed before, has new content, live exists,
   * new/&lt;i&gt; absent" as "our new content is live" and moves the live root to discard/, then deletes
   * the staging: the only copy of a root this swap never touched is deleted. The staging layout says
   * nothing was moved in (the manifest never left the staging's manifest.staged... which was never
   * written either, and the live manifest is not the journal's new manifest digest).
   */
  @Test
  void recovery_ofAFreshInstallKilledAtJournalWritten_neverDeletesARootItNeverMovedIn() throws IOException {
    SwapFixture fixture = new SwapFixture(dir.resolve("checkout")).sourcesV2();
    assertThat(SwapFixture.crashAt(SwapBoundary.JOURNAL_WRITTEN,
        hook -> SwapCrashChild.run("upgrade", fixture, hook, new OwnerIds()))).isTrue();
    assertThat(StagingPaths.journal(fixture.layout, SwapFixture.STAGING)).exists();
    assertThat(Files.exists(fixture.tools())).isFalse();

    fixture.installV1();  // the root appears by other means; this swap never touched it
    SortedMap<String, String> before = SwapFixture.snapshot(fixture.tools());

    fixture.recover(V1_SUM);

    assertThat(fixture.tools()).as("the extension root v1 the swap never touched still exists").exists();
    assertThat(SwapFixture.snapshot(fixture.tools())).as("a root the swap never moved in is not discarded")
        .isEqualTo(before);
  }
}
