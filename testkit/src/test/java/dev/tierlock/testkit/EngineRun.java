package dev.tierlock.testkit;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs one test class on the JUnit Platform from inside a test and reports each test method's
 * result, so that a test can check that a suite fails where it must.
 *
 * @param results the outcome of every test method, by method name: the failure's message, or
 *     {@code "passed"}
 */
record EngineRun(Map<String, String> results) {

  static final String PASSED = "passed";

  static EngineRun of(Class<?> testClass) {
    LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selectClass(testClass)).build();
    Map<String, String> results = new TreeMap<>();
    Launcher launcher = LauncherFactory.create();
    launcher.execute(request, new TestExecutionListener() {
      @Override
      public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        if (id.isTest()) {
          String name = id.getSource().filter(MethodSource.class::isInstance)
              .map(source -> ((MethodSource) source).getMethodName()).orElse(id.getDisplayName());
          results.put(name, result.getStatus() == TestExecutionResult.Status.SUCCESSFUL ? PASSED
              : result.getThrowable().map(t -> t.getClass().getSimpleName() + ": " + t.getMessage()).orElse("failed"));
        }
      }
    });
    return new EngineRun(Map.copyOf(results));
  }

  /** Returns the names of the test methods that did not pass. */
  Set<String> failed() {
    Set<String> failed = new TreeSet<>();
    results.forEach((name, result) -> {
      if (!result.equals(PASSED)) {
        failed.add(name);
      }
    });
    return failed;
  }
}
