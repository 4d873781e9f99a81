package dev.tierlock.benchmarks;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;

/** A datastore that runs a clean-up of its own (deleting its bucket or directory) after closing the one it wraps. */
final class ClosingDatastore extends ForwardingDatastore {

  private final Datastore delegate;
  private final Runnable cleanUp;

  ClosingDatastore(Datastore delegate, Runnable cleanUp) {
    this.delegate = delegate;
    this.cleanUp = cleanUp;
  }

  @Override
  protected Datastore delegate() {
    return delegate;
  }

  /** Returns true: it only cleans up after closing. */
  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
  }

  @Override
  public void close() {
    try {
      delegate.close();
    } finally {
      cleanUp.run();
    }
  }
}
