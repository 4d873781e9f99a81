package dev.tierlock.testkit;

import dev.tierlock.Namespace;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.Converger;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * The world of one {@link ConvergeContract} case: an {@link InstallFixture} (one shared datastore,
 * one {@link FakeRegistry}, one test clock) whose checkouts each also have a {@link Converger} on
 * that clock, and a {@link CountingDatastore} between the checkout and its faulty store, so a case
 * can count what a pass costs and read back every call it made. Not thread-safe.
 */
final class ConvergeFixture {

  /**
   * One checkout that converges.
   *
   * @param checkout its Tierlock, layout, installer and faulty store (whose log sees every call)
   * @param counted what counts its calls (on top of the faulty store)
   * @param converger its converger, on the fixture's clock
   */
  record Peer(InstallFixture.Checkout checkout, CountingDatastore counted, Converger converger) {

    /** Runs one gated pass. */
    ConvergeReport converge() {
      return converger.converge();
    }

    /** Returns the extension root of {@code name}. */
    Path root(String name) {
      return checkout.root(name);
    }

    /** Returns the log of every call this checkout made. */
    OperationLog log() {
      return checkout.store().log();
    }

    /** Installs {@code request} with {@link Catalog#NONE}. */
    void install(String request) {
      checkout.installer().install(InstallRequest.parse(request), Catalog.NONE);
    }

    /** Removes {@code name} with {@link Catalog#NONE}. */
    void remove(String name) {
      checkout.installer().remove(InstallFixture.name(name), Catalog.NONE);
    }
  }

  /** Whether a peer's installer may reach the registry. */
  enum Registry {
    /** Configured: the peer installs from the registry. */
    CONFIGURED,
    /** Never configured: the peer has the tier alone. */
    NONE
  }

  private final InstallFixture install;

  ConvergeFixture(Datastore shared, Path temp) {
    this.install = new InstallFixture(shared, temp);
  }

  InstallFixture install() {
    return install;
  }

  Datastore datastore() {
    return install.datastore();
  }

  FakeRegistry registry() {
    return install.registry();
  }

  TestClock clock() {
    return install.clock();
  }

  /** Opens peer {@code name} with the default layout. */
  Peer peer(String name, Registry registry) {
    return peer(name, registry, UnaryOperator.identity());
  }

  /** Opens peer {@code name} with its layout as {@code shape} makes it (skills, bundles). */
  Peer peer(String name, Registry registry, UnaryOperator<TempDirLayout> shape) {
    CountingDatastore[] counted = new CountingDatastore[1];
    InstallFixture.Checkout checkout = install.checkout(name, registry == Registry.CONFIGURED, shape, store -> {
      counted[0] = CountingDatastore.wrap(store);
      return counted[0];
    });
    Converger converger = Converger.builder(checkout.tierlock(), checkout.layout()).clock(install.clock())
        .random(new SplittableRandom(name.hashCode())).build();
    return new Peer(checkout, counted[0], converger);
  }

  /** Returns how many calls the registry has had (resolves and downloads). */
  int registryCalls() {
    return install.registry().resolveCalls() + install.registry().openCalls();
  }

  /** Returns the datastore key of the archive of {@code name} whose bytes are {@code archive}. */
  static ObjectKey archiveKey(String name, byte[] archive) {
    ExtensionArchiveKey key = ExtensionArchiveKey.of(InstallFixture.name(name), TestArchives.sha256(archive));
    return Namespace.NONE.key(key.tierPath());
  }

  /** Returns the keys of the archives the tier holds, sorted. */
  List<String> archives() {
    return install.archives();
  }

  /** Closes every checkout. */
  void close() {
    install.close();
  }

  /**
   * Returns, per file under {@code root} (relative path), what says whether the file was rewritten:
   * its file key (the inode, where the file system has one) and its last-modified time.
   */
  static TreeMap<String, String> identities(Path root) {
    TreeMap<String, String> out = new TreeMap<>();
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        out.put(root.relativize(p).toString().replace('\\', '/'), a.fileKey() + " " + a.lastModifiedTime());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Returns every file under {@code root} with its bytes in hex, the staging directory left out. */
  static TreeMap<String, String> extensions(Path pulledRoot) {
    TreeMap<String, String> all = InstallFixture.tree(pulledRoot);
    all.keySet().removeIf(k -> k.startsWith(".tierlock-staging/"));
    return all;
  }
}
