package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
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

/**
 * The shared store as one process sees it, so that a test can play that process dying: after
 * {@link #die()} every call it makes throws {@link Crash} and reaches nothing, so what it held (its
 * global lease) stays behind as a killed process's would. What the store is ({@link #identity()},
 * {@link #describe()}, its capacities) is still answered: those are not calls. Closing it closes
 * nothing. Thread-safe.
 */
final class MortalDatastore extends ForwardingDatastore {

  /** What a test throws to play a process that dies at that point: an {@link Error}, which no code under test handles. */
  static final class Crash extends Error {
    private static final long serialVersionUID = 1L;

    Crash() {
      super("the process died here");
    }
  }

  private final Datastore shared;
  private volatile boolean dead;

  MortalDatastore(Datastore shared) {
    this.shared = shared;
  }

  /**
   * Plays the death of the process: every later call throws {@link Crash}.
   *
   * @return a {@link Crash} for the caller to throw where the process dies
   */
  Crash die() {
    dead = true;
    return new Crash();
  }

  /** Returns whether {@link #die()} was called. */
  boolean isDead() {
    return dead;
  }

  @Override
  protected Datastore delegate() {
    return shared;
  }

  /** Returns true: until it dies every call reaches the store as it is, and after that none does. */
  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
  }

  private Datastore alive() {
    if (dead) {
      throw new Crash();
    }
    return shared;
  }

  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    return alive().read(key, condition, maxBytes);
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    return alive().openStream(key);
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    return alive().stat(key);
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    return alive().write(key, body, condition, metadata);
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    return alive().delete(key, condition);
  }

  @Override
  public List<StoredObject> list(String prefix) {
    return alive().list(prefix);
  }

  @Override
  public void close() {
    // the shared store belongs to the test
  }

  @Override
  public String toString() {
    return "Mortal[" + (dead ? "dead, " : "") + shared + "]";
  }
}
