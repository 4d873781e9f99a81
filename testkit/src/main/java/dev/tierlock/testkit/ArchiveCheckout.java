package dev.tierlock.testkit;

import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.Heartbeats;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockfileEntry;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.Sleeper;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionResult;
import dev.tierlock.archive.ArchiveChange;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveTransactions;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.archive.VerifiedArchive;
import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * One checkout of the archive contracts: a {@link Tierlock} on a shared datastore, with its
 * {@link ArchiveTransactions}, timed by a {@link TestClock}, heartbeats that never run, and a
 * caller-chosen {@link Sleeper} (so a test can make a lock waiter wait on a latch). Not thread-safe
 * beyond what {@link Tierlock} offers.
 */
final class ArchiveCheckout implements AutoCloseable {

  /** What {@link #install} did: the archive write and the transaction's end. */
  record Installed(ArchiveChange change, TransactionResult result) {}

  /** What {@link #remove} did: the archive scheduled for deletion (none or one), and the transaction's end. */
  record Removed(List<ExtensionArchiveKey> archives, TransactionResult result) {}

  private final Tierlock tierlock;
  private final ArchiveTransactions archives;

  private ArchiveCheckout(Tierlock tierlock, ArchiveTransactions archives) {
    this.tierlock = tierlock;
    this.archives = archives;
  }

  /** Opens a checkout in {@code directory} on {@code shared}; runs the self-check now. */
  static ArchiveCheckout open(Datastore shared, Path directory, TestClock clock, Sleeper sleeper,
      PublishFailurePolicy policy) {
    Heartbeats never = (name, interval, beat) -> () -> { };
    Tierlock tierlock = Tierlock.builder()
        .datastore(shared)
        .checkout(directory)
        .environment(Environment.system().withClock(clock).withSleeper(sleeper)
            .withRandom(new SplittableRandom(directory.toString().hashCode())).withHeartbeats(never)
            .withLockIdentity(LockIdentity.of("test@" + directory.getFileName(), "test-host", 1)))
        .publishFailurePolicy(policy)
        .build();
    tierlock.checkDatastore();
    return new ArchiveCheckout(tierlock, ArchiveTransactions.of(tierlock, ArchiveLimits.DEFAULTS, clock));
  }

  Tierlock tierlock() {
    return tierlock;
  }

  ArchiveTransactions archives() {
    return archives;
  }

  VerifiedArchive verify(ExtensionArchiveKey key, Path file) {
    return archives.verify(key, file);
  }

  /** Installs {@code archive} with {@code entry} in one transaction of its own. */
  Installed install(VerifiedArchive archive, LockfileEntry entry) {
    AtomicReference<ArchiveChange> change = new AtomicReference<>();
    TransactionResult result = tierlock.transaction().run(tx -> change.set(archives.install(tx, archive, entry)));
    return new Installed(change.get(), result);
  }

  /** Removes {@code name} in one transaction of its own. */
  Removed remove(ExtensionName name) {
    List<ExtensionArchiveKey> removed = new ArrayList<>();
    TransactionResult result = tierlock.transaction().run(tx -> archives.remove(tx, name).ifPresent(removed::add));
    return new Removed(List.copyOf(removed), result);
  }

  /** Returns the archive files in the checkout's cache, relative to it, sorted. */
  List<String> cachedArchives() {
    Path root = tierlock.cacheDirectory();
    if (!Files.exists(root)) {
      return List.of();
    }
    try (Stream<Path> paths = Files.walk(root)) {
      return paths.filter(p -> !Files.isDirectory(p)).map(p -> root.relativize(p).toString().replace('\\', '/'))
          .filter(p -> p.contains(ExtensionArchiveKey.DIRECTORY)).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    tierlock.close();
  }
}
