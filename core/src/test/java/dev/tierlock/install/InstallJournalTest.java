package dev.tierlock.install;

import static dev.tierlock.install.SwapFixture.STAGING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class InstallJournalTest {

  @TempDir
  Path dir;

  @Test
  void codec_roundTripsEveryPart() throws IOException {
    SwapFixture fixture = new SwapFixture(dir).installV1().sourcesV2();
    InstallJournal staged = StagingPlanner.journal(fixture.upgrade(), fixture.layout);
    assertThat(staged.nestedRoots()).containsExactly(new InstallJournal.Nested("sub"));
    assertThat(staged.oldManifestDigest()).isEqualTo(FilesDigest.sha256(fixture.tools().resolve("manifest.json")));
    Path file = dir.resolve("journal.json");
    for (InstallJournal journal : new InstallJournal[] {staged, staged.withPhase(InstallJournal.Phase.SWAPPED),
        StagingPlanner.journal(fixture.removal(), fixture.layout)}) {
      assertThat(InstallJournalCodec.decode(InstallJournalCodec.encode(journal), file)).isEqualTo(journal);
    }
    assertThat(SwapFixture.snapshot(dir)).doesNotContainKey("pulled/" + Roots.STAGING);
  }

  static Stream<Arguments> tampered() {
    return Stream.of(
        Arguments.of("a path outside staging", (UnaryOperator<String>) text -> text.replaceFirst(
            "\"old\" : \"[^\"]*/old/1\"", "\"old\" : \"/elsewhere/old/1\""), "root 1 old /elsewhere/old/1 is not "),
        Arguments.of("a ..", (UnaryOperator<String>) text -> text.replaceFirst("/old/0\"", "/new/../old/0\""),
            "/new/../old/0 is not "),
        Arguments.of("another extension's root", (UnaryOperator<String>) text -> text.replaceFirst(
            "(\"live\" : \"[^\"]*)@acme/tools\"", "$1@acme/other\""), "root 0 live "),
        Arguments.of("another lockfile", (UnaryOperator<String>) text -> text.replace("upstream_extensions.json",
            "other.json"), "other.json is not one of this checkout's"),
        Arguments.of("an unknown schema", (UnaryOperator<String>) text -> text.replace("\"schemaVersion\" : 1",
            "\"schemaVersion\" : 2"), "schema version 2 is not 1"),
        Arguments.of("an unknown member", (UnaryOperator<String>) text -> text.replaceFirst("\\{",
            "{ \"extra\" : true,"), "the journal has the unknown member \"extra\""),
        Arguments.of("a wrong type", (UnaryOperator<String>) text -> text.replaceFirst("\"liveExisted\" : true",
            "\"liveExisted\" : \"true\""), "the journal roots[0] member \"liveExisted\" is not a boolean"),
        Arguments.of("a truncated file", (UnaryOperator<String>) text -> text.substring(0, text.length() / 2),
            "the file is not valid JSON"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("tampered")
  void recovery_refusesATamperedJournalAndTouchesNothing(String what, UnaryOperator<String> tamper, String reason)
      throws IOException {
    SwapFixture fixture = new SwapFixture(dir).installV1().sourcesV2();
    SwapFixture.crashAt(SwapBoundary.movedOut(1), hook -> SwapCrashChild.run("upgrade", fixture, hook, new OwnerIds()));
    Path journal = StagingPaths.journal(fixture.layout, STAGING);
    String text = Files.readString(journal);
    String changed = tamper.apply(text);
    assertThat(changed).as("the tampering applies").isNotEqualTo(text);
    Files.writeString(journal, changed, StandardCharsets.UTF_8);
    SortedMap<String, String> before = SwapFixture.snapshot(fixture.root);

    RecoveryReport report = fixture.recover(SwapFixture.V2_SUM);

    assertThat(report.rolledBack()).isEmpty();
    assertThat(report.rolledForward()).isEmpty();
    assertThat(report.left()).singleElement().satisfies(left -> {
      assertThat(left)
          .isInstanceOfSatisfying(InstallException.class,
              e -> assertThat(e.code()).isEqualTo(InstallException.JOURNAL_INVALID))
          .hasMessageStartingWith("Cannot recover the install"
              + " journal " + journal + " of ").hasMessageContaining(reason)
          .hasMessageEndingWith("; it and its staging are left as they are");
      assertThat(left.journal().orElseThrow()).isEqualTo(journal);
    });
    assertThat(SwapFixture.snapshot(fixture.root)).isEqualTo(before);
    assertThatThrownBy(() -> Recovery.requireJudged(report, SwapFixture.TOOLS))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.JOURNAL_INVALID))
        .hasMessageContaining(reason);
  }

  @Test
  void codec_refusesTrailingContentAndNulls() {
    Path file = dir.resolve("journal.json");
    assertThatThrownBy(() -> InstallJournalCodec.decode("{} {}".getBytes(StandardCharsets.UTF_8), file))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.JOURNAL_INVALID))
        .hasMessage("Cannot recover the install journal " + file + " of (unknown): content follows the journal object;"
            + " it and its staging are left as they are");
    assertThatThrownBy(() -> InstallJournalCodec.decode(new byte[0], file))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.JOURNAL_INVALID))
        .hasMessageContaining(": the file is empty;");
  }
}
