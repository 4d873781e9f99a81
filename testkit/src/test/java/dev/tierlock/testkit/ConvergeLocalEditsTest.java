package dev.tierlock.testkit;

import static dev.tierlock.testkit.ConvergeScenarios.ALPHA;
import static dev.tierlock.testkit.ConvergeScenarios.names;
import static dev.tierlock.testkit.InstallFixture.tree;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.ConvergeStatus;
import dev.tierlock.install.Converger;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local edits are never discarded silently: a restore that must replace an edited extension (a
 * newer pin) keeps the edited files under the state directory and says so once, whether the edit is
 * in the files the digest counts, in a skill, or in a bundle root; a nested extension's root is never
 * replaced by its parent's restore; {@link Converger.Edits#REPLACE} replaces.
 */
class ConvergeLocalEditsTest {

  private static final String TOOL = "@acme/tool";
  private static final String PLUGIN = "@acme/tool/plugin";

  @TempDir Path temp;

  private ConvergeFixture f;
  private ConvergeFixture.Peer a;

  @AfterEach
  void close() {
    if (f != null) {
      f.close();
      f.datastore().close();
    }
  }

  private static byte[] archive(String version) {
    return TestArchives.extension(ALPHA, version).file("lib/main.txt", "main " + version)
        .file("skills/review.md", "review " + version).file("bundles/models/m.bin", "model " + version).build();
  }

  /** Peer a installs 1.0.0, peer b (laid out by {@code shape}) converges to it; returns b. */
  private ConvergeFixture.Peer convergedAt100(UnaryOperator<TempDirLayout> shape) {
    f = new ConvergeFixture(FakeRemote.create(), temp);
    f.registry().publish(ALPHA, "1.0.0", archive("1.0.0"));
    f.registry().publish(ALPHA, "2.0.0", archive("2.0.0"));
    a = f.peer("a", ConvergeFixture.Registry.CONFIGURED, shape);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE, shape);
    assertThat(names(b.converge().restored())).containsExactly(ALPHA);
    return b;
  }

  private void peerPins200() {
    a.install(ALPHA + "@2.0.0");
  }

  private Path state(ConvergeFixture.Peer peer) {
    return peer.checkout().tierlock().stateDirectory();
  }

  /** Returns the one directory of kept edits of ALPHA, failing when there is none or more. */
  private static Path keptCopy(Path state) throws IOException {
    Path dir = state.resolve("kept-edits").resolve("@acme").resolve("alpha");
    assertThat(dir).as("edits are kept under the state directory").isDirectory();
    try (Stream<Path> copies = Files.list(dir)) {
      List<Path> all = copies.toList();
      assertThat(all).as("one whole copy, no partial one").singleElement().satisfies(p ->
          assertThat(p.getFileName().toString()).startsWith("1.0.0-"));
      return all.get(0);
    }
  }

  @Test
  void aVersionBump_overAnEditedExtension_keepsTheEditAside_warnsOnce_andStatusNamesIt() throws IOException {
    ConvergeFixture.Peer b = convergedAt100(UnaryOperator.identity());
    Files.writeString(b.root(ALPHA).resolve("lib/main.txt"), "edited on b");
    Files.writeString(b.root(ALPHA).resolve("lib/notes.txt"), "added on b");
    peerPins200();

    ConvergeReport bump = b.converge();

    assertThat(names(bump.restored())).containsExactly(ALPHA);
    assertThat(tree(b.root(ALPHA))).as("the pinned version is restored").containsKey("lib/main.txt")
        .doesNotContainKey("lib/notes.txt");
    assertThat(Files.readString(b.root(ALPHA).resolve("lib/main.txt"))).isEqualTo("main 2.0.0");
    Path kept = keptCopy(state(b));
    assertThat(Files.readString(kept.resolve("root/lib/main.txt"))).isEqualTo("edited on b");
    assertThat(Files.readString(kept.resolve("root/lib/notes.txt"))).isEqualTo("added on b");
    assertThat(bump.warnings()).singleElement().asString().contains(ALPHA + " 1.0.0 had files that differ")
        .contains("edited locally").contains("kept at " + kept).contains("before 2.0.0 was restored over them");
    assertThat(bump.newWarnings()).isTrue();
    assertThat(b.converger().status()).singleElement().satisfies(s -> {
      assertThat(s.state()).isEqualTo(ConvergeStatus.State.VERIFIED);
      assertThat(s.reason()).contains("local edits kept at " + kept);
    });

    ConvergeReport again = b.converger().convergeFully();

    assertThat(again.restored()).isEmpty();
    assertThat(again.warnings()).as("said once: the restored files are what this checkout verified").isEmpty();
    assertThat(names(again.verified())).containsExactly(ALPHA);
  }

  @Test
  void anEditOnlyInASkill_thatTheDigestSkips_isKeptWhenABumpReplacesIt() throws IOException {
    ConvergeFixture.Peer b = convergedAt100(l -> l.withSkills(p -> p.startsWith("skills/")));
    Files.writeString(b.root(ALPHA).resolve("skills/review.md"), "my review skill");
    assertThat(b.converger().convergeFully().warnings()).as("at the pinned version a skill edit is invisible, and"
        + " nothing replaces it").isEmpty();
    peerPins200();

    ConvergeReport bump = b.converge();

    assertThat(names(bump.restored())).containsExactly(ALPHA);
    assertThat(Files.readString(b.root(ALPHA).resolve("skills/review.md"))).isEqualTo("review 2.0.0");
    assertThat(Files.readString(keptCopy(state(b)).resolve("root/skills/review.md"))).isEqualTo("my review skill");
    assertThat(bump.warnings()).singleElement().asString().contains("kept at");
  }

  @Test
  void anEditOnlyInABundleRoot_isKeptWhenABumpReplacesIt() throws IOException {
    Path bundles = temp.resolve("bundles-of");
    ConvergeFixture.Peer b = convergedAt100(l -> l.withBundle("bundles/models",
        n -> bundles.resolve(l.pulledRoot().getParent().getFileName().toString()).resolve(n.value().substring(1))));
    Path model = b.checkout().layout().bundleRoots(InstallFixture.name(ALPHA)).get(0).live().resolve("m.bin");
    assertThat(model).hasContent("model 1.0.0");
    Files.writeString(model, "retrained on b");
    peerPins200();

    ConvergeReport bump = b.converge();

    assertThat(names(bump.restored())).containsExactly(ALPHA);
    assertThat(model).hasContent("model 2.0.0");
    assertThat(keptCopy(state(b)).resolve("bundles/bundles/models/m.bin")).hasContent("retrained on b");
    assertThat(bump.warnings()).singleElement().asString().contains("kept at");
  }

  @Test
  void anEditInANestedExtensionsRoot_staysInPlace_whenItsParentIsRestored() throws IOException {
    f = new ConvergeFixture(FakeRemote.create(), temp);
    f.registry().publish(TOOL, "1.0.0", TestArchives.extension(TOOL, "1.0.0").file("t.txt", "t1").build());
    f.registry().publish(TOOL, "2.0.0", TestArchives.extension(TOOL, "2.0.0").file("t.txt", "t2").build());
    f.registry().publish(PLUGIN, "0.1.0", TestArchives.extension(PLUGIN, "0.1.0").file("p.txt", "p").build());
    a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(TOOL + "@1.0.0");
    a.install(PLUGIN + "@0.1.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(names(b.converge().restored())).containsExactly(TOOL, PLUGIN);
    Files.writeString(b.root(PLUGIN).resolve("p.txt"), "plugin edited on b");
    a.install(TOOL + "@2.0.0");

    ConvergeReport bump = b.converge();

    assertThat(names(bump.restored())).containsExactly(TOOL);
    assertThat(b.root(PLUGIN).resolve("p.txt")).as("the nested root travels into the new root as it is")
        .hasContent("plugin edited on b");
    assertThat(bump.warnings()).as("the plugin's own entry judges it, at its pinned version: kept in place")
        .singleElement().asString().contains(PLUGIN + " 0.1.0 differs from what the lockfile pins");
    assertThat(state(b).resolve("kept-edits")).as("nothing of the tool was edited").doesNotExist();
  }

  @Test
  void replace_replacesAnEditedExtension_keepingNoCopy_atTheSameVersionAndOverABump() throws IOException {
    ConvergeFixture.Peer b = convergedAt100(UnaryOperator.identity());
    Files.writeString(b.root(ALPHA).resolve("lib/main.txt"), "edited on b");
    Converger force = Converger.builder(b.checkout().tierlock(), b.checkout().layout()).clock(f.clock())
        .edits(Converger.Edits.REPLACE).build();
    assertThat(b.converger().convergeFully().warnings()).singleElement().asString().contains("kept as it is")
        .contains("converge --force");

    ConvergeReport same = force.convergeFully();

    assertThat(names(same.restored())).containsExactly(ALPHA);
    assertThat(b.root(ALPHA).resolve("lib/main.txt")).hasContent("main 1.0.0");
    Files.writeString(b.root(ALPHA).resolve("lib/main.txt"), "edited again");
    peerPins200();

    ConvergeReport bump = force.converge();

    assertThat(names(bump.restored())).containsExactly(ALPHA);
    assertThat(bump.warnings()).isEmpty();
    assertThat(b.root(ALPHA).resolve("lib/main.txt")).hasContent("main 2.0.0");
    assertThat(state(b).resolve("kept-edits")).doesNotExist();
  }
}
