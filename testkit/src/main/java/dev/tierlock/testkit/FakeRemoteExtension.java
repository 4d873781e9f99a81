package dev.tierlock.testkit;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives each test a fresh {@link FakeRemote} and a {@link TestClock},
 * injected into test constructors, lifecycle and test methods by parameter type. Within one test
 * every parameter of a type receives the same instance (constructor included: the extension asks
 * JUnit for the test-method scope during instantiation), and the remote is closed, its temp
 * directory deleted, after the test. With {@code @TestInstance(PER_CLASS)} a constructor parameter
 * lives for the whole class instead.
 *
 * <p><b>Leak checks</b>, after a test that otherwise passed: the test fails if a {@link
 * Faults#beforeNext} or {@link Faults#afterNext} hook it registered never ran (such a test did not exercise what it set up, so
 * it could not have failed for the right reason), or if a download it opened is still open. Unused
 * one-shot {@link Faults#failNext} counts are <em>not</em> checked: code with retries legitimately
 * leaves some unconsumed, and checking them would make tests brittle. A test that means to leave a
 * hook unused calls {@link Faults#clear()}.
 *
 * <p>Other extensions (a checkout extension, say) reach the same instances through {@link
 * #remote(ExtensionContext)} and {@link #clock(ExtensionContext)}. Thread-safe as JUnit requires.
 */
public final class FakeRemoteExtension implements ParameterResolver, AfterEachCallback {

  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(FakeRemoteExtension.class);
  private static final String KEY = "resources";

  /** Creates the extension; JUnit calls this through {@code @ExtendWith(FakeRemoteExtension.class)}. */
  public FakeRemoteExtension() {}

  /**
   * {@return the fake remote of the test (or class) {@code context} belongs to, creating it on first use}
   *
   * @param context the JUnit context of the test or class
   */
  public static FakeRemote remote(ExtensionContext context) {
    return resources(context).remote();
  }

  /**
   * {@return the test clock of the test (or class) {@code context} belongs to, creating it on first use}
   *
   * @param context the JUnit context of the test or class
   */
  public static TestClock clock(ExtensionContext context) {
    return resources(context).clock();
  }

  @Override
  public ExtensionContextScope getTestInstantiationExtensionContextScope(ExtensionContext rootContext) {
    return ExtensionContextScope.TEST_METHOD;
  }

  @Override
  public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    Class<?> type = parameterContext.getParameter().getType();
    return type == FakeRemote.class || type == TestClock.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    Class<?> type = parameterContext.getParameter().getType();
    return type == FakeRemote.class ? remote(extensionContext) : clock(extensionContext);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    Resources resources = context.getStore(NAMESPACE).remove(KEY, Resources.class);
    if (resources == null) {
      return;
    }
    try {
      if (context.getExecutionException().isEmpty()) {
        checkLeaks(resources.remote());
      }
    } finally {
      resources.close();
    }
  }

  private static void checkLeaks(FakeRemote remote) {
    List<String> problems = new ArrayList<>();
    if (remote.faults().pendingHooks() > 0) {
      problems.add(remote.faults().pendingHooks() + " beforeNext or afterNext hook(s) never ran (pending: "
          + remote.faults().pending() + "; call faults().clear() to drop a hook on purpose)");
    }
    if (!remote.openStreams().isEmpty()) {
      problems.add("download(s) left open: " + remote.openStreams());
    }
    if (!problems.isEmpty()) {
      throw new AssertionError("Cannot pass the test: " + String.join("; ", problems));
    }
  }

  private static Resources resources(ExtensionContext context) {
    return context.getStore(NAMESPACE).getOrComputeIfAbsent(KEY, k -> new Resources(), Resources.class);
  }

  /** One test's fake remote and clock; closed by {@link #afterEach} or, failing that, by the store. */
  private static final class Resources implements AutoCloseable {
    private final FakeRemote remote = FakeRemote.create();
    private final TestClock clock = TestClock.create();

    FakeRemote remote() {
      return remote;
    }

    TestClock clock() {
      return clock;
    }

    @Override
    public void close() {
      remote.close();
    }
  }
}
