package dev.tierlock.datastore.fs;

import dev.tierlock.ExtensionName;
import dev.tierlock.Tierlock;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.Converger;
import dev.tierlock.testkit.TempDirLayout;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

/**
 * The program {@link ConvergeCrashProcessTest} runs in a second JVM: {@code <datastore dir>
 * <checkout dir> <boundary label|record>}. It opens the checkout on the filesystem datastore and
 * runs one {@link Converger#converge()} with a boundary hook. A boundary's label is its engine name
 * and how many times the pass has reached that name so far ({@code journal-written#1} is the first
 * swap's, {@code journal-written#2} the second's: a pass that restores one extension and removes
 * another passes every name twice). With a label, it prints {@code at <label>} when it reaches it
 * and waits there for ever, holding whatever the pass holds (the test kills it); with {@code
 * record}, it prints {@code boundary <label>} for each one it passes, then {@code report <outcome>
 * restored=<names> removed=<names>} and {@code done}. Whatever it throws, it prints {@code failed
 * <exception>} and halts.
 */
final class ConvergeCrashChild {

  /** The argument that records the boundaries instead of stopping at one. */
  static final String RECORD = "record";

  private ConvergeCrashChild() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Throwable e) {
      // said at once, and the JVM ends even if a thread of the checkout would keep it alive
      System.out.println("failed " + e);
      System.out.flush();
      e.printStackTrace();
      Runtime.getRuntime().halt(1);
    }
  }

  private static void run(String[] args) throws Exception {
    Path datastore = Path.of(args[0]);
    Path checkout = Path.of(args[1]);
    String target = args[2];
    Map<String, Integer> passed = new HashMap<>();
    ConvergeReport report;
    try (Tierlock tierlock = Tierlock.builder().datastore(FileSystemDatastore.open(datastore)).checkout(checkout)
        .build()) {
      Converger.Builder builder = Converger.builder(tierlock, layout(checkout));
      builder.boundaries(boundary -> {
        String label = boundary + "#" + passed.merge(boundary, 1, Integer::sum);
        if (target.equals(RECORD)) {
          System.out.println("boundary " + label);
          System.out.flush();
        } else if (target.equals(label)) {
          park(label);
        }
      });
      report = builder.build().converge();
    }
    System.out.println("report " + report.outcome() + " restored=" + names(report.restored()) + " removed="
        + names(report.removed()));
    System.out.println("done");
    System.out.flush();
  }

  private static String names(List<ExtensionName> names) {
    return names.stream().map(ExtensionName::value).collect(Collectors.joining(",", "[", "]"));
  }

  /** Prints {@code at <where>} and waits there for ever: the test kills the JVM. */
  private static void park(String where) {
    System.out.println("at " + where);
    System.out.flush();
    try {
      new CountDownLatch(1).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted at " + where, e);
    }
  }

  /** The layout of every process of the test: {@code <checkout>/extensions}, JSON manifests. */
  static TempDirLayout layout(Path checkout) {
    return TempDirLayout.in(checkout.toAbsolutePath());
  }
}
