package dev.tierlock.datastore.s3;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.SdkHttpClient;

/**
 * An HTTP client in front of a real one that can make the next calls wait for a pooled connection
 * that never frees, as when every connection of the pool is held by a call the server stalls. The
 * SDK's deadline aborts the wait, and the wait ends the way the Apache client's pool ends it when
 * the abort's cancellation is seen before the deadline's interrupt (what a loaded machine does): a
 * bare {@link java.util.concurrent.CancellationException} from the call, the thread not
 * interrupted. Nothing is sent for such a call. Thread-safe.
 */
final class LeaseCancellingHttpClient implements SdkHttpClient {

  private final SdkHttpClient delegate;
  private final AtomicInteger starved = new AtomicInteger();

  LeaseCancellingHttpClient(SdkHttpClient delegate) {
    this.delegate = delegate;
  }

  /** Makes the next {@code calls} calls wait for a connection until their deadline aborts them. */
  void starveNext(int calls) {
    starved.set(calls);
  }

  @Override
  public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
    if (starved.getAndUpdate(n -> Math.max(0, n - 1)) == 0) {
      return delegate.prepareRequest(request);
    }
    CompletableFuture<Void> lease = new CompletableFuture<>();
    return new ExecutableHttpRequest() {
      @Override
      public software.amazon.awssdk.http.HttpExecuteResponse call() {
        try {
          return lease.thenApply(v -> (software.amazon.awssdk.http.HttpExecuteResponse) null).join();
        } finally {
          Thread.interrupted();  // the pool saw the cancellation first: the interrupt is not what ends the wait
        }
      }

      @Override
      public void abort() {
        lease.cancel(false);
      }
    };
  }

  @Override
  public void close() {
    delegate.close();
  }
}
