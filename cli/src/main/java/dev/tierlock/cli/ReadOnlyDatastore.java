package dev.tierlock.cli;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The datastore as {@code tierlock doctor} uses it: every write and delete is refused (a bug, if one
 * were tried), except while {@link #allowingWrites} runs the self-check that {@code --self-check}
 * asked for. Closing it leaves the datastore open: whoever opened it closes it.
 */
final class ReadOnlyDatastore extends ForwardingDatastore {
  private final Datastore delegate;
  private final AtomicBoolean writable = new AtomicBoolean();

  ReadOnlyDatastore(Datastore delegate) {
    this.delegate = delegate;
  }

  @Override
  protected Datastore delegate() {
    return delegate;
  }

  /** Returns true: it refuses writes and deletes, and lets those it allows through as they are. */
  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
  }

  /** Runs {@code action} with writes and deletes let through. */
  void allowingWrites(Runnable action) {
    writable.set(true);
    try {
      action.run();
    } finally {
      writable.set(false);
    }
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    refuse("write", key);
    return delegate.write(key, body, condition, metadata);
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    refuse("delete", key);
    return delegate.delete(key, condition);
  }

  @Override
  public void close() {
    // the caller closes the datastore it opened
  }

  private void refuse(String what, ObjectKey key) {
    if (!writable.get()) {
      throw new IllegalStateException("Cannot " + what + " " + key + " in " + delegate.describe()
          + ": tierlock doctor writes nothing to the datastore without --self-check");
    }
  }
}
