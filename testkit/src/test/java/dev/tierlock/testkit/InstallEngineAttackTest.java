package dev.tierlock.testkit;

import static dev.tierlock.testkit.InstallFixture.name;
import static dev.tierlock.testkit.InstallFixture.tree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.InstallRequest;
import java.nio.file.Path;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Adversarial review (review4): public-API attacks on the install engine that fail on the current code. */
class InstallEngineAttackTest {

  private static final String TOOL = "@acme/tool";
  private static final String PLUGIN = TOOL + "/plugin";
  private static final String DEEP = PLUGIN + "/deep";

  @TempDir
  Path temp;

  private InstallFixture f;

  @BeforeEach
  void open() {
    f = new InstallFixture(FakeRemote.create(), temp);
  }

  @AfterEach
  void close() {
    f.close();
    f.datastore().close();
  }

  private static byte[] tool(String version) {
    return TestArchives.extension(TOOL, version).file("lib/a.txt", "a" + version).build();
  }

  /**
   * A nested extension installed with record policy NEVER is on disk but not in the lockfile; the
   * outer extension's upgrade finds nested roots only from the lockfile's names, so it moves the
   * nested root to old/ with the outer and deletes it at commit.
   */
  @Test
  void outerUpgrade_keepsANestedExtensionInstalledWithPolicyNever() {
    f.registry().publish(TOOL, "1.0.0", tool("1.0.0"));
    f.registry().publish(TOOL, "2.0.0", tool("2.0.0"));
    f.registry().publish(PLUGIN, "0.1.0", TestArchives.extension(PLUGIN, "0.1.0").file("p.txt", "p").build());
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    a.installer()
        .install(InstallRequest.parse(PLUGIN + "@0.1.0").withPolicy(InstallRequest.RecordPolicy.NEVER), Catalog.NONE);
    TreeMap<String, String> plugin = tree(a.root(PLUGIN));
    assertThat(plugin).containsKeys("manifest.json", "p.txt");

    a.installer().install(InstallRequest.parse(TOOL + "@2.0.0"), Catalog.NONE);

    assertThat(tree(a.root(PLUGIN))).as("the nested extension survives the outer's upgrade").isEqualTo(plugin);
  }

  /** Same hole on removal: removing the outer deletes a nested extension the lockfile does not name. */
  @Test
  void outerRemoval_keepsANestedExtensionInstalledWithPolicyNever() {
    f.registry().publish(TOOL, "1.0.0", tool("1.0.0"));
    f.registry().publish(PLUGIN, "0.1.0", TestArchives.extension(PLUGIN, "0.1.0").file("p.txt", "p").build());
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    a.installer()
        .install(InstallRequest.parse(PLUGIN + "@0.1.0").withPolicy(InstallRequest.RecordPolicy.NEVER), Catalog.NONE);
    TreeMap<String, String> plugin = tree(a.root(PLUGIN));

    a.installer().remove(name(TOOL), Catalog.NONE);

    assertThat(tree(a.root(PLUGIN))).as("the nested extension survives the outer's removal").isEqualTo(plugin);
  }

  /**
   * Two levels of nesting (@acme/tool/plugin and @acme/tool/plugin/deep, both recorded): the nested
   * roots are [plugin, plugin/deep]; staging copies plugin (deep included), then copies plugin/deep
   * onto the copy already there, which fails, so the outer can never be upgraded.
   */
  @Test
  void outerUpgrade_withTwoLevelsOfNestedExtensions_succeedsAndKeepsBoth() {
    f.registry().publish(TOOL, "1.0.0", tool("1.0.0"));
    f.registry().publish(TOOL, "2.0.0", tool("2.0.0"));
    f.registry().publish(PLUGIN, "0.1.0", TestArchives.extension(PLUGIN, "0.1.0").file("p.txt", "p").build());
    f.registry().publish(DEEP, "0.1.0", TestArchives.extension(DEEP, "0.1.0").file("d.txt", "d").build());
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    a.installer().install(InstallRequest.parse(PLUGIN + "@0.1.0"), Catalog.NONE);
    a.installer().install(InstallRequest.parse(DEEP + "@0.1.0"), Catalog.NONE);
    TreeMap<String, String> plugin = tree(a.root(PLUGIN));

    assertThatCode(() -> a.installer().install(InstallRequest.parse(TOOL + "@2.0.0"), Catalog.NONE))
        .as("upgrading the outer with two levels of nested extensions").doesNotThrowAnyException();

    assertThat(f.shared().entry(name(TOOL)).map(LockfileEntry::version)).contains("2.0.0");
    assertThat(tree(a.root(PLUGIN))).isEqualTo(plugin);
  }

  /**
   * A dependency already installed at a version that does not satisfy the parent's constraint is
   * counted "satisfied" (the lockfile entry's version equals the live manifest's) and skipped, so the
   * parent lands with a dependency its manifest forbids and no error.
   */
  @Test
  void aDependencyInstalledAtAVersionOutsideTheParentsConstraint_isNotSilentlyKept() {
    String base = "@acme/base";
    f.registry().publish(base, "1.0.0", TestArchives.extension(base, "1.0.0").file("b.txt", "b1").build());
    f.registry().publish(base, "2.0.0", TestArchives.extension(base, "2.0.0").file("b.txt", "b2").build());
    f.registry().publish(TOOL, "1.0.0", TestArchives.extension(TOOL, "1.0.0").dependency(base, "^2.0.0")
        .file("lib/a.txt", "a").build());
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(base + "@1.0.0"), Catalog.NONE);

    Throwable thrown = null;
    try {
      a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    } catch (RuntimeException e) {
      thrown = e;
    }

    String baseVersion = f.shared().entry(name(base)).map(LockfileEntry::version).orElse("none");
    assertThat(thrown != null || baseVersion.equals("2.0.0"))
        .as("either the install is refused with an error, or @acme/base is brought to ^2.0.0 (it is %s)", baseVersion)
        .isTrue();
  }

  /**
   * Checkout a restores v1 (pinned, so prepared from the tier with no lock). Before a's transaction
   * takes the lease, peer b upgrades to v2 and, after its publish, deletes v1's archive as superseded.
   * a's apply then writes an entry pinning v1 from its stale preparation: the prepare's premise (the
   * lockfile pins v1, the tier holds it) is never re-checked under the lock, and a tier-sourced
   * archive registers no requireStored, so the publish pins v1's checksum while the tier lacks it, and
   * deletes v2's archive as superseded too: the tier holds neither.
   */
  @Test
  void aRestorePreparedFromTheTier_racingAPeersUpgrade_neverPinsAnArchiveTheTierLacks() {
    f.registry().publish(TOOL, "1.0.0", tool("1.0.0"));
    f.registry().publish(TOOL, "2.0.0", tool("2.0.0"));
    InstallFixture.Checkout a = f.checkout("a");
    InstallFixture.Checkout b = f.checkout("b");
    b.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    a.store().faults().beforeNext(dev.tierlock.testkit.DatastoreOperation.WRITE,
        k -> k.value().endsWith(".datastore.lock"),
        () -> b.installer().install(InstallRequest.parse(TOOL + "@2.0.0"), Catalog.NONE));

    try {
      a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    } catch (RuntimeException refused) {
      // refusing the stale restore is a fine answer too
    }

    assertThat(a.store().faults().pendingHooks()).as("the peer's upgrade ran in between").isZero();
    LockfileEntry entry = f.shared().entry(name(TOOL)).orElseThrow();
    String key = Namespace.NONE.key(ExtensionArchiveKey.of(ExtensionName.of(TOOL), entry.checksum().orElseThrow())
        .tierPath()).value();
    assertThat(f.archives()).as("the lockfile pins %s@%s: the tier must hold its archive", TOOL, entry.version())
        .contains(key);
  }
}
