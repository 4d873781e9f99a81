package dev.tierlock.internal;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs each task on the thread that submits it, before {@code execute} returns. The lock files'
 * {@link java.nio.channels.AsynchronousFileChannel}s use it, so that writing a holder into a lock
 * file (or reading one) is a plain positional write on the caller's thread, not a hand-off to a
 * pool thread and back: the channel still ignores interrupts (it never closes on one), and the
 * caller is never parked waiting for another thread. Never shut down; stateless and thread-safe.
 */
final class CallingThreadExecutor extends AbstractExecutorService {

  /** The one instance. */
  static final CallingThreadExecutor INSTANCE = new CallingThreadExecutor();

  private CallingThreadExecutor() {}

  @Override
  public void execute(Runnable task) {
    task.run();
  }

  /** Does nothing: the executor holds no threads, and every task has run by the time it was accepted. */
  @Override
  public void shutdown() {
    // nothing to stop
  }

  @Override
  public List<Runnable> shutdownNow() {
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return false;
  }
}
