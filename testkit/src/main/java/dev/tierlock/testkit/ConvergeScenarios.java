package dev.tierlock.testkit;

import static dev.tierlock.testkit.ConvergeFixture.extensions;
import static dev.tierlock.testkit.ConvergeFixture.identities;
import static dev.tierlock.testkit.InstallFixture.name;
import static dev.tierlock.testkit.InstallFixture.tree;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.spi.ObjectKey;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/** The {@link ConvergeContract} cases of restoring, verifying and removing, and of what a pass costs. */
final class ConvergeScenarios {

  static final String ALPHA = "@acme/alpha";
  static final String BETA = "@acme/beta";
  static final String GAMMA = "@acme/gamma";
  private static final String TOOL = "@acme/tool";
  private static final String PLUGIN = "@acme/tool/plugin";

  private final ConvergeFixture f;
  private final String store;

  ConvergeScenarios(ConvergeFixture fixture, String store) {
    this.f = fixture;
    this.store = store;
  }

  /** Returns the archive of {@code name@version}: a manifest and two files whose bytes say which release it is. */
  static byte[] archive(String name, String version) {
    return TestArchives.extension(name, version).file("lib/main.txt", name + " " + version)
        .file("lib/only-" + version + ".txt", "only in " + version).build();
  }

  /** Publishes {@code name@version} as {@link #archive} makes it, and returns its bytes. */
  static byte[] publish(ConvergeFixture f, String name, String version) {
    byte[] bytes = archive(name, version);
    f.registry().publish(name, version, bytes);
    return bytes;
  }

  static List<String> names(List<ExtensionName> names) {
    return names.stream().map(ExtensionName::value).toList();
  }

  /** Returns the targets of the archive calls in {@code log} (reads, downloads, stats of pulled archives). */
  static List<String> archiveCalls(OperationLog log) {
    return log.entries().stream().filter(o -> o.target().contains(ExtensionArchiveKey.DIRECTORY + "/"))
        .map(LoggedOperation::target).toList();
  }

  void aPeerWithoutARegistry_convergesByteForByte_thenTouchesOnlyWhatChanged() {
    publish(f, ALPHA, "1.0.0");
    publish(f, BETA, "1.0.0");
    publish(f, GAMMA, "1.0.0");
    byte[] beta2 = publish(f, BETA, "2.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    a.install(BETA + "@1.0.0");
    a.install(GAMMA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    int calls = f.registryCalls();

    ConvergeReport first = b.converge();

    assertThat(first.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(names(first.restored())).containsExactly(ALPHA, BETA, GAMMA);
    assertThat(first.removed()).isEmpty();
    assertThat(first.pending()).isEmpty();
    assertThat(first.unrestorable()).isEmpty();
    assertThat(first.warnings()).isEmpty();
    for (String n : List.of(ALPHA, BETA, GAMMA)) {
      assertThat(tree(b.root(n))).as(n + " byte for byte").isNotEmpty().isEqualTo(tree(a.root(n)));
    }
    assertThat(extensions(b.checkout().layout().pulledRoot())).as("every file under the extension roots")
        .isEqualTo(extensions(a.checkout().layout().pulledRoot()));
    assertThat(f.registryCalls()).as("the registry is never called").isEqualTo(calls);

    a.install(BETA + "@2.0.0");
    a.remove(ALPHA);
    TreeMap<String, String> gammaBytes = tree(b.root(GAMMA));
    TreeMap<String, String> gammaFiles = identities(b.root(GAMMA));
    calls = f.registryCalls();
    b.log().clear();

    ConvergeReport second = b.converge();

    assertThat(second.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(names(second.restored())).containsExactly(BETA);
    assertThat(names(second.removed())).containsExactly(ALPHA);
    assertThat(names(second.verified())).containsExactly(GAMMA);
    assertThat(tree(b.root(BETA))).isEqualTo(tree(a.root(BETA))).containsKey("lib/only-2.0.0.txt");
    assertThat(Files.exists(b.root(ALPHA))).isFalse();
    assertThat(tree(b.root(GAMMA))).as("the third is byte-identical").isEqualTo(gammaBytes);
    assertThat(identities(b.root(GAMMA))).as("and was not rewritten").isEqualTo(gammaFiles);
    assertThat(archiveCalls(b.log())).as("only the upgraded one's archive is fetched")
        .isNotEmpty().containsOnly(ConvergeFixture.archiveKey(BETA, beta2).value());
    assertThat(extensions(b.checkout().layout().pulledRoot()))
        .isEqualTo(extensions(a.checkout().layout().pulledRoot()));
    assertThat(f.registryCalls()).isEqualTo(calls);
    System.out.printf("converge cost on %s: first pass of 3 entries requests=%d bytes=%d;"
        + " upgrade+removal pass requests=%d bytes=%d%n", store, first.requests(), first.bytes(),
        second.requests(), second.bytes());
  }

  void aNoOpPass_onAThousandEntryLockfile_costsOneRequest_andNoBody() {
    publish(f, ALPHA, "1.0.0");
    byte[] beta = publish(f, BETA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    a.checkout().tierlock().transaction().run(tx -> {
      for (int i = 0; i < 999; i++) {
        tx.put(name(String.format("@bulk/e%04d", i)), LockfileEntry.builder("1.0.0", f.clock().instant()).build());
      }
    });
    assertThat(f.install().shared().size()).isEqualTo(1000);
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    ConvergeReport first = b.converge();
    assertThat(first.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(names(first.restored())).containsExactly(ALPHA);
    assertThat(first.unrestorable()).hasSize(999)
        .allMatch(u -> u.reason() == ConvergeReport.Unrestorable.Reason.UNPINNED);
    assertThat(first.requests()).isEqualTo(b.counted().total());
    b.counted().reset();
    b.log().clear();

    ConvergeReport noop = b.converge();

    assertThat(noop.outcome()).isEqualTo(ConvergeReport.Outcome.UNCHANGED);
    assertThat(noop.restored()).isEmpty();
    assertThat(noop.removed()).isEmpty();
    assertThat(b.counted().total()).as("at most one request").isLessThanOrEqualTo(1);
    assertThat(noop.requests()).as("the report counts what the datastore saw").isEqualTo(b.counted().total());
    assertThat(noop.bytes()).as("no body").isZero();
    assertThat(b.log().entries()).extracting(LoggedOperation::outcome).as("a not-modified read carries no body")
        .containsOnly("NOT_MODIFIED");
    assertThat(noop.lockfileVersion()).isEqualTo(first.lockfileVersion()).isPresent();
    b.counted().reset();

    ConvergeReport known = b.converger().convergeIfChanged(noop.lockfileVersion().orElseThrow());

    assertThat(known.outcome()).isEqualTo(ConvergeReport.Outcome.UNCHANGED);
    assertThat(b.counted().total()).as("no request at all").isZero();
    assertThat(known.requests()).isZero();
    assertThat(known.bytes()).isZero();

    a.install(BETA + "@1.0.0");
    long lockfileBytes = f.install().shared().bytes().length;
    b.counted().reset();
    ConvergeReport change = b.converge();

    assertThat(names(change.restored())).containsExactly(BETA);
    assertThat(names(change.verified())).containsExactly(ALPHA);
    assertThat(change.skipped()).as("the unpinned ones are not looked at again").hasSize(999);
    assertThat(change.requests()).isEqualTo(b.counted().total());
    assertThat(change.bytes()).as("the lockfile and the one archive").isEqualTo(lockfileBytes + beta.length);
    System.out.printf("converge cost on %s: no-op pass on 1000 entries requests=%d bytes=%d; known version"
        + " requests=%d bytes=%d; one-entry change requests=%d bytes=%d (%s; lockfile %d bytes, archive %d bytes)%n",
        store, noop.requests(), noop.bytes(), known.requests(), known.bytes(), change.requests(), change.bytes(),
        b.counted().counts(), lockfileBytes, beta.length);
  }

  void aSameVersionLocalEdit_survivesWithAWarning_butAChangedChecksumIsRestored() throws IOException {
    publish(f, ALPHA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    b.checkout().installer()
        .install(InstallRequest.parse(ALPHA).withPolicy(InstallRequest.RecordPolicy.NEVER), Catalog.NONE);
    Files.writeString(b.root(ALPHA).resolve("lib/main.txt"), "edited on b");
    TreeMap<String, String> edited = tree(b.root(ALPHA));

    ConvergeReport first = b.converge();

    assertThat(first.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(first.restored()).isEmpty();
    assertThat(first.verified()).isEmpty();
    assertThat(first.warnings()).singleElement().asString().contains(ALPHA).contains("edited locally");
    assertThat(tree(b.root(ALPHA))).as("the edit stays").isEqualTo(edited);
    ConvergeReport full = b.converger().convergeFully();
    assertThat(full.restored()).isEmpty();
    assertThat(tree(b.root(ALPHA))).isEqualTo(edited);

    byte[] republished = TestArchives.extension(ALPHA, "1.0.0").file("lib/main.txt", "republished").build();
    f.registry().publish(ALPHA, "1.0.0", republished);
    a.remove(ALPHA);
    a.install(ALPHA + "@1.0.0");
    LockfileEntry entry = f.install().shared().entry(name(ALPHA)).orElseThrow();
    assertThat(entry.version()).isEqualTo("1.0.0");
    assertThat(entry.checksum()).contains(TestArchives.sha256(republished));

    ConvergeReport changed = b.converge();

    assertThat(names(changed.restored())).as("same version, another checksum").containsExactly(ALPHA);
    assertThat(tree(b.root(ALPHA))).isEqualTo(tree(a.root(ALPHA))).containsEntry("lib/main.txt",
        java.util.HexFormat.of().formatHex("republished".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }

  void skillFiles_editedOrAddedOnAPeer_neverTriggerARestore() throws IOException {
    UnaryOperator<TempDirLayout> skills = l -> l.withSkills(p -> p.startsWith("skills/"));
    byte[] alpha = TestArchives.extension(ALPHA, "1.0.0").file("lib/main.txt", "main")
        .file("skills/review.md", "review").build();
    f.registry().publish(ALPHA, "1.0.0", alpha);
    publish(f, BETA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED, skills);
    a.install(ALPHA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE, skills);
    assertThat(names(b.converge().restored())).containsExactly(ALPHA);
    assertThat(tree(b.root(ALPHA))).containsKey("skills/review.md");
    Files.writeString(b.root(ALPHA).resolve("skills/review.md"), "my own review");
    Files.writeString(b.root(ALPHA).resolve("skills/extra.md"), "my own skill");
    TreeMap<String, String> mine = tree(b.root(ALPHA));
    TreeMap<String, String> files = identities(b.root(ALPHA));

    ConvergeReport full = b.converger().convergeFully();

    assertThat(full.restored()).isEmpty();
    assertThat(names(full.verified())).containsExactly(ALPHA);
    assertThat(full.warnings()).isEmpty();
    a.install(BETA + "@1.0.0");
    ConvergeReport gated = b.converge();
    assertThat(names(gated.restored())).containsExactly(BETA);
    assertThat(names(gated.verified())).containsExactly(ALPHA);
    assertThat(gated.warnings()).isEmpty();
    assertThat(tree(b.root(ALPHA))).isEqualTo(mine);
    assertThat(identities(b.root(ALPHA))).isEqualTo(files);
  }

  void aNestedExtension_convergesWithoutMakingItsOuterLookEdited() {
    f.registry().publish(TOOL, "1.0.0", archive(TOOL, "1.0.0"));
    f.registry().publish(PLUGIN, "0.1.0", TestArchives.extension(PLUGIN, "0.1.0").file("p.txt", "p").build());
    f.registry().publish(TOOL, "2.0.0", archive(TOOL, "2.0.0"));
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(TOOL + "@1.0.0");
    a.install(PLUGIN + "@0.1.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);

    ConvergeReport first = b.converge();

    assertThat(names(first.restored())).containsExactly(TOOL, PLUGIN);
    assertThat(tree(b.root(TOOL))).isEqualTo(tree(a.root(TOOL))).containsKey("plugin/p.txt");
    ConvergeReport full = b.converger().convergeFully();
    assertThat(full.restored()).isEmpty();
    assertThat(names(full.verified())).as("the plugin does not make the tool look edited")
        .containsExactly(TOOL, PLUGIN);
    assertThat(full.warnings()).isEmpty();
    TreeMap<String, String> plugin = tree(b.root(PLUGIN));

    a.install(TOOL + "@2.0.0");
    ConvergeReport upgrade = b.converge();

    assertThat(names(upgrade.restored())).containsExactly(TOOL);
    assertThat(names(upgrade.verified())).containsExactly(PLUGIN);
    assertThat(upgrade.warnings()).isEmpty();
    assertThat(tree(b.root(PLUGIN))).as("the plugin survives the outer's restore").isEqualTo(plugin);
    assertThat(tree(b.root(TOOL))).isEqualTo(tree(a.root(TOOL)));
    assertThat(b.converger().convergeFully().restored()).isEmpty();
  }

  void checkoutsWithDifferentSkillLayouts_neverSwapEachOthersFilesBackAndForth() {
    UnaryOperator<TempDirLayout> onA = l -> l.withSkills(p -> p.startsWith("skills/"));
    UnaryOperator<TempDirLayout> onB = l -> l.withSkills(p -> p.startsWith("agent-skills/"));
    for (String n : List.of(ALPHA, BETA)) {
      f.registry().publish(n, "1.0.0", TestArchives.extension(n, "1.0.0").file("lib/main.txt", n)
          .file("skills/a.md", "a").file("agent-skills/b.md", "b").build());
    }
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED, onA);
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.CONFIGURED, onB);
    a.install(ALPHA + "@1.0.0");
    assertThat(names(b.converge().restored())).containsExactly(ALPHA);
    b.install(BETA + "@1.0.0");
    assertThat(names(a.converge().restored())).containsExactly(BETA);
    List<String> warnings = new ArrayList<>();
    java.util.Set<String> pins = new java.util.HashSet<>();

    for (int round = 1; round <= 3; round++) {
      for (List<ConvergeFixture.Peer> turn : List.of(List.of(a, b), List.of(b, a))) {
        ConvergeFixture.Peer installing = turn.get(0);
        ConvergeFixture.Peer other = turn.get(1);
        installing.install(ALPHA + "@1.0.0");
        installing.install(BETA + "@1.0.0");
        pins.add(f.install().shared().entry(name(ALPHA)).orElseThrow().filesChecksum().orElseThrow());
        for (ConvergeReport r : List.of(other.converge(), other.converger().convergeFully(), installing.converge(),
            installing.converger().convergeFully())) {
          assertThat(r.restored()).as("round %d: %s", round, r).isEmpty();
          assertThat(r.removed()).as("round %d: %s", round, r).isEmpty();
          warnings.addAll(r.warnings());
        }
      }
    }
    assertThat(pins).as("each checkout's install pins its own digest: the entries did flip").hasSize(2);
    assertThat(tree(a.root(ALPHA))).containsKeys("lib/main.txt", "skills/a.md", "agent-skills/b.md");
    assertThat(tree(b.root(BETA))).isEqualTo(tree(a.root(BETA)));
    System.out.printf("different skill layouts on %s: %d warnings%s%n", store, warnings.size(),
        warnings.isEmpty() ? "" : ", e.g. " + warnings.get(0));
  }

  void convergence_neverCallsTheRegistry_andNeverWritesTheLockfileOrTheTier() {
    publish(f, ALPHA, "1.0.0");
    publish(f, BETA, "1.0.0");
    publish(f, BETA, "2.0.0");
    byte[] gamma = publish(f, GAMMA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    a.install(BETA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    int calls = f.registryCalls();
    assertThat(names(b.converge().restored())).containsExactly(ALPHA, BETA);
    a.install(BETA + "@2.0.0");
    a.remove(ALPHA);
    a.install(GAMMA + "@1.0.0");
    ObjectKey gammaKey = ConvergeFixture.archiveKey(GAMMA, gamma);
    f.datastore().delete(gammaKey, dev.tierlock.spi.WriteCondition.none());
    String lockfile = f.install().shared().text();
    List<String> archives = f.archives();
    calls = f.registryCalls();

    ConvergeReport second = b.converge();
    ConvergeReport full = b.converger().convergeFully();
    b.converger().status();
    ConvergeReport gated = b.converge();
    b.converger().convergeIfChanged("another version");

    assertThat(names(second.restored())).containsExactly(BETA);
    assertThat(names(second.removed())).containsExactly(ALPHA);
    assertThat(second.unrestorable()).extracting(u -> u.name().value(), ConvergeReport.Unrestorable::reason)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(GAMMA, ConvergeReport.Unrestorable.Reason.ARCHIVE_MISSING));
    assertThat(full.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(gated.outcome()).isEqualTo(ConvergeReport.Outcome.UNCHANGED);
    ObjectKey lockfileKey = Namespace.NONE.key(TierPath.LOCKFILE);
    assertThat(b.log().entries()).as("no write or delete of the lockfile")
        .noneMatch(o -> o.operation().changes() && o.target().equals(lockfileKey.value()));
    assertThat(b.log().entries()).as("no write or delete of any pulled archive")
        .noneMatch(o -> o.operation().changes() && o.target().contains(ExtensionArchiveKey.DIRECTORY));
    assertThat(b.log().entries()).as("no write or delete at all").noneMatch(o -> o.operation().changes());
    assertThat(f.install().shared().text()).isEqualTo(lockfile);
    assertThat(f.archives()).isEqualTo(archives);
    assertThat(f.registryCalls()).as("the registry is never called").isEqualTo(calls);
  }

  void anExtensionDroppedFromTheLockfile_isRemoved_unlessEditedLocally_thenKeptWithAWarning() throws IOException {
    publish(f, ALPHA, "1.0.0");
    publish(f, BETA, "1.0.0");
    publish(f, GAMMA, "1.0.0");
    ConvergeFixture.Peer a = f.peer("a", ConvergeFixture.Registry.CONFIGURED);
    a.install(ALPHA + "@1.0.0");
    a.install(BETA + "@1.0.0");
    a.install(GAMMA + "@1.0.0");
    ConvergeFixture.Peer b = f.peer("b", ConvergeFixture.Registry.NONE);
    assertThat(names(b.converge().restored())).containsExactly(ALPHA, BETA, GAMMA);
    Files.writeString(b.root(ALPHA).resolve("lib/main.txt"), "edited on b");
    TreeMap<String, String> edited = tree(b.root(ALPHA));
    a.remove(ALPHA);
    a.remove(BETA);

    ConvergeReport r = b.converge();

    assertThat(names(r.removed())).as("the unedited one only").containsExactly(BETA);
    assertThat(r.restored()).isEmpty();
    assertThat(names(r.verified())).containsExactly(GAMMA);
    assertThat(r.warnings()).singleElement().asString().contains(ALPHA).contains("no longer in the lockfile");
    assertThat(tree(b.root(ALPHA))).as("kept as edited").isEqualTo(edited);
    assertThat(Files.exists(b.root(BETA))).isFalse();
    ConvergeReport full = b.converger().convergeFully();
    assertThat(full.removed()).isEmpty();
    assertThat(tree(b.root(ALPHA))).isEqualTo(edited);
  }
}
