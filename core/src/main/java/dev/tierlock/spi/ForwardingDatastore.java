package dev.tierlock.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A datastore that forwards every call to another one: extend it and override only the calls a
 * decorator changes (counting, fault injection, a self-check before the first write). Forwards
 * everything else, {@link #identity()}, {@link #maxMetadataBytes()}, {@link #versionsRepeat()}, {@link #versionsBindMetadata()}, {@link #minWriteInterval()} and
 * {@link #close()} included,
 * so wrapping a store never changes how Tierlock uses it. Thread-safe when the delegate is.
 *
 * <p><b>The precondition self-check.</b> A decorator sits between Tierlock and the store, so it can
 * break what the store honours (a decorator that retries a refused write without its condition
 * loses writes over the most honest store). Tierlock therefore binds the self-check's verdict to
 * the store <em>and</em> to every decorator in front of it ({@link #preconditionChain()}): a
 * decorator is checked on its own, under a verdict of its own, unless it declares with {@link
 * #passesPreconditionsThrough()} that it passes preconditions through unchanged, in which case it
 * shares the verdict of what it wraps.
 */
public abstract class ForwardingDatastore implements Datastore {

  /** Creates the decorator; {@link #delegate()} supplies the target. */
  protected ForwardingDatastore() {}

  /** {@return the datastore every call goes to; the same one for the life of this decorator} */
  protected abstract Datastore delegate();

  /**
   * Declares whether this decorator passes write preconditions through unchanged, so that the
   * precondition self-check's verdict of its delegate holds for it too. Return true only when every
   * {@link #write} and {@link #delete} that this decorator lets through reaches the delegate once,
   * with the condition it was given, and the caller gets the delegate's answer or an exception the
   * {@link Datastore} contract allows for what really happened (refused before it was sent:
   * unavailable; an answer it dropped: outcome unknown). Counting, logging, refusing, delaying or
   * moving calls to another thread all pass preconditions through; rewriting or dropping a
   * condition, retrying a refused call without it, or answering for the delegate do not.
   *
   * <p>By default false: the decorator, with everything it wraps, is a store of its own to
   * Tierlock, which runs the full self-check through it (per process, and remembered for a day
   * under a verdict object of its own) and refuses it if it breaks a precondition. Thread-safe;
   * called before the first write and may be called again.
   *
   * @return whether write preconditions pass through this decorator unchanged
   */
  protected boolean passesPreconditionsThrough() {
    return false;
  }

  /**
   * Returns the datastores that decide how this one treats write preconditions, outermost first:
   * this decorator unless it {@linkplain #passesPreconditionsThrough() passes preconditions
   * through}, then those of its delegate (recursively, through every {@code ForwardingDatastore}),
   * and last the store that is not a decorator. The precondition self-check binds its verdict to
   * this chain and to the last store's {@link #identity()}: two datastores share a verdict only
   * when their chains hold the same kinds of decorator in the same order over one store. Thread-safe.
   *
   * @return the chain, never empty; its last element is not a {@code ForwardingDatastore}
   */
  public final List<Datastore> preconditionChain() {
    List<Datastore> chain = new ArrayList<>();
    Datastore layer = this;
    while (layer instanceof ForwardingDatastore decorator) {
      if (!decorator.passesPreconditionsThrough()) {
        chain.add(decorator);
      }
      layer = decorator.delegate();
    }
    chain.add(layer);
    return List.copyOf(chain);
  }

  @Override
  public DatastoreIdentity identity() {
    return delegate().identity();
  }

  @Override
  public String describe() {
    return delegate().describe();
  }

  @Override
  public int maxMetadataBytes() {
    return delegate().maxMetadataBytes();
  }

  @Override
  public boolean versionsRepeat() {
    return delegate().versionsRepeat();
  }

  @Override
  public boolean versionsBindMetadata() {
    return delegate().versionsBindMetadata();
  }

  @Override
  public java.time.Duration minWriteInterval() {
    return delegate().minWriteInterval();
  }

  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    return delegate().read(key, condition, maxBytes);
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    return delegate().openStream(key);
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    return delegate().stat(key);
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    return delegate().write(key, body, condition, metadata);
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    return delegate().delete(key, condition);
  }

  @Override
  public List<StoredObject> list(String prefix) {
    return delegate().list(prefix);
  }

  @Override
  public void close() {
    delegate().close();
  }
}
