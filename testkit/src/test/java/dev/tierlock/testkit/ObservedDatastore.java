package dev.tierlock.testkit;

import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The shared fake remote as one checkout of a property run sees it: reports each write of the
 * shared lockfile that lands (even when its answer is lost) with its commit id, and, once the
 * checkout's process has died, lets nothing more through (its lease stays behind, as a dead
 * process's would). Closing it closes nothing. Thread-safe as the fake remote is.
 */
final class ObservedDatastore implements Datastore {
  private final FakeRemote remote;
  private final ObjectKey lockfile;
  private final Consumer<String> onLanded;
  private volatile boolean dead;

  ObservedDatastore(FakeRemote remote, ObjectKey lockfile, Consumer<String> onLanded) {
    this.remote = remote;
    this.lockfile = lockfile;
    this.onLanded = onLanded;
  }

  /** Plays the death of the checkout's process: every later call throws {@link LockfileTransactionPropertyTest.Crash}. */
  void die() {
    dead = true;
  }

  private void alive() {
    if (dead) {
      throw new LockfileTransactionPropertyTest.Crash();
    }
  }

  @Override
  public DatastoreIdentity identity() {
    return remote.identity();
  }

  @Override
  public int maxMetadataBytes() {
    return remote.maxMetadataBytes();
  }

  @Override
  public String describe() {
    return remote.describe();
  }

  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    alive();
    return remote.read(key, condition, maxBytes);
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    alive();
    return remote.openStream(key);
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    alive();
    return remote.stat(key);
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    alive();
    String commit = metadata.get(ObjectMetadata.COMMIT_ID).orElse("");
    try {
      WriteResult result = remote.write(key, body, condition, metadata);
      if (key.equals(lockfile) && result instanceof WriteResult.Written) {
        onLanded.accept(commit);
      }
      return result;
    } catch (OutcomeUnknownException e) {
      if (key.equals(lockfile) && remote.peekObject(lockfile)
          .flatMap(o -> o.metadata().get(ObjectMetadata.COMMIT_ID)).filter(commit::equals).isPresent()) {
        onLanded.accept(commit);
      }
      throw e;
    }
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    alive();
    return remote.delete(key, condition);
  }

  @Override
  public List<StoredObject> list(String prefix) {
    alive();
    return remote.list(prefix);
  }

  @Override
  public void close() {
    // The remote belongs to the property.
  }
}
