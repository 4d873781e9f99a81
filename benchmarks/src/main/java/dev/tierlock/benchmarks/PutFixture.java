package dev.tierlock.benchmarks;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.FakeRemote;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * One writer making warm puts on a shared lockfile of a given size, on a fake remote without
 * latency: the lockfile planted, the checkout past the self-check and one put, so that every later
 * {@link #put()} sets one existing name to a new version (the file keeps its size).
 */
final class PutFixture implements AutoCloseable {

  private final FakeRemote remote;
  private final Path work;
  private final Optional<Tierlock> tierlock;
  private final Committer committer;
  private final ExtensionName name;
  private final LockfileEntry entry;
  private final int lockfileBytes;
  private long version;

  private PutFixture(FakeRemote remote, Path work, Optional<Tierlock> tierlock, Committer committer,
      ExtensionName name, LockfileEntry entry, int lockfileBytes) {
    this.remote = remote;
    this.work = work;
    this.tierlock = tierlock;
    this.committer = committer;
    this.name = name;
    this.entry = entry;
    this.lockfileBytes = lockfileBytes;
  }

  /**
   * Opens a warm writer of {@code protocol} on a lockfile of {@code entries} entries; the writer
   * reaches the remote through {@code reach} (to count or move its calls).
   */
  static PutFixture open(PutProtocol protocol, int entries, UnaryOperator<Datastore> reach) {
    FakeRemote remote = FakeRemote.create();
    Path work = WorkDirectory.create("tierlock-bench-put-");
    Lockfile lockfile = Fixtures.lockfile(entries);
    byte[] bytes = lockfile.bytes();
    remote.plant(Namespace.NONE.key(TierPath.LOCKFILE), bytes);
    Datastore store = reach.apply(remote);
    Optional<Tierlock> tierlock = Optional.empty();
    Committer committer;
    if (protocol == PutProtocol.BASELINE) {
      committer = UploadProtocol.baseline(store, work.resolve("checkout"), "bench", 1);
    } else {
      Tierlock checkout = TierlockCommitter.open(store, work.resolve("checkout"), "bench", protocol.mode(),
          Protocol.GroupCommit.ON);
      checkout.checkDatastore();
      tierlock = Optional.of(checkout);
      committer = new TierlockCommitter(checkout);
    }
    ExtensionName name = lockfile.names().iterator().next();
    PutFixture fixture = new PutFixture(remote, work, tierlock, committer, name, lockfile.entry(name).orElseThrow(),
        bytes.length);
    fixture.put();
    return fixture;
  }

  /** Sets the name to its next version, every other field kept (the file keeps its size): one committed change. */
  void put() {
    committer.put(name, entry.toBuilder().version("2.0." + (++version % 10)).build());
  }

  /** Returns the size of the shared lockfile, in bytes (give or take a digit of the version). */
  int lockfileBytes() {
    return lockfileBytes;
  }

  /** Returns the writer's checkout directory. */
  Path checkout() {
    return work.resolve("checkout");
  }

  @Override
  public void close() {
    tierlock.ifPresent(Tierlock::close);
    remote.close();
    WorkDirectory.delete(work);
  }
}
