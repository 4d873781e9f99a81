package dev.tierlock.benchmarks;

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
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Makes every call of the wrapped store on a thread of its own and waits for it, so that what the
 * store writes to disk (the fake remote keeps its objects in files) is not written by the caller's
 * thread: the caller's own writes are then exactly its local writes. Closing stops the thread and
 * closes the wrapped store.
 */
final class OffThreadDatastore extends ForwardingDatastore {

  private final Datastore delegate;
  private final ExecutorService thread = Executors.newSingleThreadExecutor(task -> {
    Thread t = new Thread(task, "datastore-calls");
    t.setDaemon(true);
    return t;
  });

  OffThreadDatastore(Datastore delegate) {
    this.delegate = delegate;
  }

  @Override
  protected Datastore delegate() {
    return delegate;
  }

  /** Returns true: it only moves each call to another thread. */
  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
  }

  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    return call(() -> delegate.read(key, condition, maxBytes));
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    return call(() -> delegate.openStream(key));
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    return call(() -> delegate.stat(key));
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    return call(() -> delegate.write(key, body, condition, metadata));
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    return call(() -> delegate.delete(key, condition));
  }

  @Override
  public List<StoredObject> list(String prefix) {
    return call(() -> delegate.list(prefix));
  }

  @Override
  public void close() {
    thread.shutdownNow();
    delegate.close();
  }

  private <T> T call(Callable<T> call) {
    try {
      return thread.submit(call).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Cannot wait for a datastore call: interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException("Cannot make a datastore call: " + e.getCause(), e.getCause());
    }
  }
}
