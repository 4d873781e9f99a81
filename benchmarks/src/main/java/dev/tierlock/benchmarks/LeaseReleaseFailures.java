package dev.tierlock.benchmarks;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the lease releases core could not make ({@code LeaseHolding}'s "Cannot release lock"
 * warning: the lease then lingers until its ttl), leaving out those the benchmark caused by
 * interrupting a writer at the end of a run. Logback builds it from {@code logback.xml}, so it is
 * public.
 */
public final class LeaseReleaseFailures extends AppenderBase<ILoggingEvent> {

  private static final AtomicInteger COUNT = new AtomicInteger();

  /** Returns the failed releases counted so far in this JVM. */
  static int count() {
    return COUNT.get();
  }

  @Override
  protected void append(ILoggingEvent event) {
    if (event.getFormattedMessage().startsWith("Cannot release") && !interrupted(event.getThrowableProxy())) {
      COUNT.incrementAndGet();
    }
  }

  private static boolean interrupted(IThrowableProxy failure) {
    for (IThrowableProxy cause = failure; cause != null; cause = cause.getCause()) {
      if (cause.getClassName().equals(InterruptedException.class.getName())
          || String.valueOf(cause.getMessage()).contains("interrupted")) {
        return true;
      }
    }
    return false;
  }
}
