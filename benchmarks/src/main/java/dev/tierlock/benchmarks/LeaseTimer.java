package dev.tierlock.benchmarks;

import dev.tierlock.Namespace;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Times how long the global lease object lives: from the return of the write that created it to
 * the start of the delete that removes it, the time the holder spends under the lease. Both
 * Tierlock's lease and the baseline protocol's lock are that object ({@code .datastore.lock} at the
 * root). Closing closes the wrapped store. Thread-safe.
 */
final class LeaseTimer extends ForwardingDatastore {

  static final ObjectKey LEASE = Namespace.NONE.rootKey(".datastore.lock");

  private final Datastore delegate;
  private final List<Long> holds = new ArrayList<>();
  private long createdAt = -1;

  LeaseTimer(Datastore delegate) {
    this.delegate = delegate;
  }

  @Override
  protected Datastore delegate() {
    return delegate;
  }

  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    WriteResult result = super.write(key, body, condition, metadata);
    if (key.equals(LEASE) && result instanceof WriteResult.Written) {
      synchronized (this) {
        if (createdAt < 0) {
          createdAt = System.nanoTime();
        }
      }
    }
    return result;
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    if (key.equals(LEASE)) {
      synchronized (this) {
        if (createdAt >= 0) {
          holds.add(System.nanoTime() - createdAt);
          createdAt = -1;
        }
      }
    }
    return super.delete(key, condition);
  }

  /** Forgets every hold timed so far. */
  synchronized void reset() {
    holds.clear();
  }

  /** Returns the median hold in milliseconds, NaN when no lease object was created and deleted. */
  synchronized double medianMillis() {
    long[] sorted = holds.stream().mapToLong(Long::longValue).sorted().toArray();
    return ContendedRun.percentile(sorted, 0.5);
  }

  /** Returns how many holds were timed. */
  synchronized int count() {
    return holds.size();
  }
}
