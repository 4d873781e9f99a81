package dev.tierlock.benchmarks;

import dev.tierlock.CommitMode;
import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import java.nio.file.Path;

/** Commits through the public API: one {@code transaction().run} per change, on a real clock and real sleeps. */
final class TierlockCommitter implements Committer {

  private final Tierlock tierlock;

  TierlockCommitter(Tierlock tierlock) {
    this.tierlock = tierlock;
  }

  /**
   * Opens a checkout in {@code directory} on {@code store} with core's defaults (lock waits, deadline,
   * heartbeats), in {@code mode} with {@code group}, named {@code holder} in the lock.
   */
  static Tierlock open(Datastore store, Path directory, String holder, CommitMode mode, Protocol.GroupCommit group) {
    Tierlock.Builder builder = Tierlock.builder()
        .datastore(store)
        .checkout(directory)
        .environment(Environment.system()
            .withLockIdentity(LockIdentity.of(holder + "@bench", "bench-host", ProcessHandle.current().pid())))
        .commitMode(mode);
    if (group == Protocol.GroupCommit.OFF) {
      builder.withoutGroupCommit();
    }
    return builder.build();
  }

  @Override
  public void put(ExtensionName name, LockfileEntry entry) {
    settled(tierlock.transaction().run(tx -> tx.put(name, entry)));
  }

  @Override
  public void remove(ExtensionName name) {
    settled(tierlock.transaction().run(tx -> tx.remove(name)));
  }

  private static void settled(TransactionResult result) {
    if (result.status() != TransactionStatus.PUBLISHED) {
      throw new IllegalStateException("Cannot count a commit that ended " + result.status());
    }
  }
}
