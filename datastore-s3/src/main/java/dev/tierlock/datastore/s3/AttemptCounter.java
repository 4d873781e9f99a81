package dev.tierlock.datastore.s3;

import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Counts the attempts of one call that reach the wire, so that a failure can be judged by whether an
 * earlier attempt may have landed. A call opts in by carrying a fresh counter in its {@link
 * #ATTEMPTS} execution attribute and one of the {@link #plugin} plugins; the counter is then
 * incremented just before each attempt is transmitted. Stateless and thread-safe.
 */
final class AttemptCounter implements ExecutionInterceptor {

  /** The per-call counter of transmitted attempts. */
  static final ExecutionAttribute<AtomicInteger> ATTEMPTS = new ExecutionAttribute<>("TierlockTransmittedAttempts");

  private static final AttemptCounter INSTANCE = new AttemptCounter();

  private static final SdkPlugin COUNT_ONLY =
      config -> config.overrideConfiguration(o -> o.addExecutionInterceptor(INSTANCE));

  private static final SdkPlugin COUNT_ONE_ATTEMPT = config -> config.overrideConfiguration(
      o -> o.addExecutionInterceptor(INSTANCE).retryStrategy(AwsRetryStrategy.doNotRetry()));

  private AttemptCounter() {}

  /**
   * Returns the request plugin that installs the counter and, for {@link ConditionalWriteRetries#CALLER},
   * limits the call to a single attempt.
   */
  static SdkPlugin plugin(ConditionalWriteRetries retries) {
    return retries == ConditionalWriteRetries.CALLER ? COUNT_ONE_ATTEMPT : COUNT_ONLY;
  }

  /** Returns the plugin that installs the counter and keeps the client's retry strategy. */
  static SdkPlugin countOnly() {
    return COUNT_ONLY;
  }

  @Override
  public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
    AtomicInteger attempts = attributes.getAttribute(ATTEMPTS);
    if (attempts != null) {
      attempts.incrementAndGet();
    }
  }
}
