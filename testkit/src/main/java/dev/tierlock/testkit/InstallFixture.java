package dev.tierlock.testkit;

import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.Heartbeats;
import dev.tierlock.LockIdentity;
import dev.tierlock.Lockfile;
import dev.tierlock.Namespace;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.Tierlock;
import dev.tierlock.install.Installer;
import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The world of one {@link InstallEngineContract} case: one datastore shared by checkouts, each with
 * its own directory, {@link TempDirLayout} and {@link Installer}; one {@link FakeRegistry}; one test
 * clock. Not thread-safe (the checkouts it opens are).
 */
final class InstallFixture {

  /** One checkout: its Tierlock, its layout and its installer. */
  record Checkout(Tierlock tierlock, TempDirLayout layout, Installer installer, FaultyDatastore store) {

    /** Returns the extension root of {@code name}. */
    Path root(String name) {
      Path root = layout.pulledRoot();
      for (String part : name.split("/")) {
        root = root.resolve(part);
      }
      return root;
    }
  }

  private final Datastore shared;
  private final Path temp;
  private final TestClock clock = TestClock.create();
  private final FakeRegistry registry = FakeRegistry.create();
  private final List<Checkout> checkouts = new ArrayList<>();
  /** Told when a caller of any checkout of the fixture queues behind another in this JVM. */
  private final QueueWatch queued = new QueueWatch();

  InstallFixture(Datastore shared, Path temp) {
    this.shared = shared;
    this.temp = temp;
  }

  Datastore datastore() {
    return shared;
  }

  FakeRegistry registry() {
    return registry;
  }

  TestClock clock() {
    return clock;
  }

  /** Returns what the checkouts' queueing hook was told: a test waits on it for a caller to queue. */
  QueueWatch queued() {
    return queued;
  }

  Path temp() {
    return temp;
  }

  /** Opens checkout {@code name} with the registry. */
  Checkout checkout(String name) {
    return checkout(name, true);
  }

  /** Opens checkout {@code name}, with or without the registry (then it installs from the tier alone). */
  Checkout checkout(String name, boolean withRegistry) {
    return checkout(name, withRegistry, java.util.function.UnaryOperator.identity());
  }

  /** Opens checkout {@code name} with the registry and its layout as {@code layout} shapes it (bundles, skills). */
  Checkout checkout(String name, java.util.function.UnaryOperator<TempDirLayout> layout) {
    return checkout(name, true, layout);
  }

  private Checkout checkout(String name, boolean withRegistry, java.util.function.UnaryOperator<TempDirLayout> shape) {
    return checkout(name, withRegistry, shape, java.util.function.UnaryOperator.identity());
  }

  /**
   * Opens checkout {@code name} as {@link #checkout(String, boolean)} does, its layout shaped by
   * {@code shape}, its Tierlock talking to {@code over} applied to the checkout's faulty store (a
   * {@link CountingDatastore} on top, say), so that every call the checkout makes reaches the
   * faulty store's log.
   */
  Checkout checkout(String name, boolean withRegistry, java.util.function.UnaryOperator<TempDirLayout> shape,
      java.util.function.UnaryOperator<Datastore> over) {
    Path directory = temp.resolve("checkout-" + name);
    FaultyDatastore store = FaultyDatastore.wrap(shared);
    Heartbeats never = (lock, interval, beat) -> () -> { };
    Tierlock tierlock = Tierlock.builder().datastore(over.apply(store)).checkout(directory)
        .environment(Environment.system().withClock(clock).withSleeper(clock.sleeper())
            .withRandom(new SplittableRandom(name.hashCode())).withHeartbeats(never)
            .withLockIdentity(LockIdentity.of("test@" + name, "test-host", 1)).withQueueing(queued))
        .publishFailurePolicy(PublishFailurePolicy.THROW)
        .build();
    TempDirLayout layout = shape.apply(TempDirLayout.in(directory));
    Installer.Builder builder = Installer.builder(tierlock, layout).clock(clock);
    if (withRegistry) {
      builder.registry(registry);
    }
    Checkout checkout = new Checkout(tierlock, layout, builder.build(), store);
    checkouts.add(checkout);
    return checkout;
  }

  /** Closes every checkout. */
  void close() {
    checkouts.forEach(c -> c.tierlock().close());
    checkouts.clear();
  }

  /** Returns the shared lockfile as the datastore holds it. */
  Lockfile shared() {
    return TestCheckout.sharedLockfile(shared, Namespace.NONE);
  }

  /** Returns the keys of the archives the tier holds, sorted. */
  List<String> archives() {
    return shared.list(dev.tierlock.archive.ExtensionArchiveKey.DIRECTORY + "/").stream().map(o -> o.key().value())
        .sorted().toList();
  }

  /** Returns every file under {@code root} with its bytes as text, by relative path (empty when absent). */
  static TreeMap<String, String> tree(Path root) {
    TreeMap<String, String> files = new TreeMap<>();
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return files;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        files.put(root.relativize(p).toString().replace('\\', '/'), java.util.HexFormat.of().formatHex(Files.readAllBytes(p)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** Returns the names of what the staging directory of {@code checkout} holds (empty when none). */
  static List<String> staging(Checkout checkout) {
    Path staging = checkout.layout().pulledRoot().resolve(".tierlock-staging");
    if (!Files.isDirectory(staging)) {
      return List.of();
    }
    try (Stream<Path> list = Files.list(staging)) {
      return list.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ExtensionName name(String value) {
    return ExtensionName.of(value);
  }
}
