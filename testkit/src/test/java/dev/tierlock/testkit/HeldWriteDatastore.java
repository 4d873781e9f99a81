package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Holds the next lockfile write back (a request queued in a proxy past the client's timeout),
 * answering "outcome unknown", and sends it to the store, precondition and all, when told.
 */
final class HeldWriteDatastore extends ForwardingDatastore {
  private final Datastore delegate;
  private final AtomicReference<@Nullable Runnable> armed = new AtomicReference<>();
  private final AtomicReference<WriteResult> delivered = new AtomicReference<>();
  private volatile @Nullable Runnable holdNext;

  HeldWriteDatastore(Datastore delegate) {
    this.delegate = delegate;
  }

  /** Holds the next lockfile write back; {@code whenHeld} runs as it is held. */
  void holdNextLockfileWrite(Runnable whenHeld) {
    holdNext = whenHeld;
  }

  /** Delivers the held write now; returns what the store answered. */
  WriteResult deliver() {
    Runnable send = armed.getAndSet(null);
    if (send == null) {
      throw new IllegalStateException("no write was held back");
    }
    send.run();
    return delivered.get();
  }

  @Override
  protected Datastore delegate() {
    return delegate;
  }

  /** Returns true: a held write reaches the store later as it was sent, and its caller hears "outcome unknown". */
  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    Runnable whenHeld = holdNext;
    if (whenHeld != null && key.equals(TransactionFixture.LOCKFILE_KEY)) {
      holdNext = null;
      whenHeld.run();
      byte[] bytes;
      try (InputStream in = body.open()) {
        bytes = in.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      armed.set(() -> delivered.set(delegate.write(key, ObjectBody.of(bytes), condition, metadata)));
      throw new OutcomeUnknownException("Cannot write " + key + ": the request timed out (held back by the test)", null);
    }
    return delegate.write(key, body, condition, metadata);
  }

  @Override
  public void close() {
    // the fixture closes the store
  }
}
