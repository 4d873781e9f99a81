package dev.tierlock.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Section 6: how long the command line takes to start, against a Java hello-world started by the
 * same JVM in the same run. The distribution the normal build writes ({@code
 * cli/target/tierlock-*.zip}) is unpacked into the work directory and run through its own launcher,
 * {@code bin/tierlock}, as an operator runs it; each round runs every case once, interleaved, so
 * that the machine's noise falls on all of them alike. Wall time is measured around the process and
 * CPU time (user and system, the JVM's threads included) by the shell's {@code times}.
 */
final class StartupSection {

  /** One case: what it runs, and its medians over the rounds. */
  record Case(String label, double wallMillis, double cpuMillis) {}

  /**
   * What the section measured.
   *
   * @param cases the hello-world first, then the command line's cases
   * @param firstRunMillis the wall time of the first run, which writes the class-data-sharing archive
   * @param rounds how many times each case ran
   */
  record Result(List<Case> cases, double firstRunMillis, int rounds) {

    /** {@return the hello-world's case, the baseline} */
    Case hello() {
      return cases.get(0);
    }

    /** {@return the case of {@code entries list} through the launcher, with its archive} */
    Case list() {
      return cases.get(1);
    }
  }

  private static final Pattern TIMES = Pattern.compile("(\\d+)m([\\d.]+)s\\s+(\\d+)m([\\d.]+)s");

  private final Path work;
  private final int rounds;

  StartupSection(Path work, int rounds) {
    this.work = work;
    this.rounds = rounds;
  }

  /** Unpacks the distribution next to {@code module}, then runs every case {@link #rounds} times. */
  Result measure(Path module) throws IOException, InterruptedException {
    Path home = unpack(distribution(module), Files.createDirectories(work.resolve("distribution")));
    Path hello = helloWorld(Files.createDirectories(work.resolve("hello")));
    Path checkout = Files.createDirectories(work.resolve("checkout"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String launcher = home.resolve("bin/tierlock").toString();
    String jar = home.resolve("tierlock-cli.jar").toString();

    Map<String, List<String>> commands = new LinkedHashMap<>();
    commands.put("Java hello-world (`java -Xshare:auto -cp . Hello`)", List.of(java, "-Xshare:auto", "-cp", hello.toString(), "Hello"));
    commands.put("`bin/tierlock entries list`, the embedded default, 1 entry", List.of("sh", launcher, "entries", "list"));
    commands.put("`bin/tierlock --version` (every command modelled, no datastore opened)", List.of("sh", launcher, "--version"));
    commands.put("`java -jar tierlock-cli.jar entries list` (no archive of its own)", List.of(java, "-jar", jar, "entries", "list"));

    run(checkout, List.of("sh", launcher, "entries", "put", "@bench/hello", "1.0.0"));
    double first = run(checkout, List.of("sh", launcher, "entries", "list"))[0];
    Map<String, List<double[]>> samples = new LinkedHashMap<>();
    commands.keySet().forEach(label -> samples.put(label, new ArrayList<>()));
    for (int round = 0; round < rounds; round++) {
      for (Map.Entry<String, List<String>> command : commands.entrySet()) {
        samples.get(command.getKey()).add(run(checkout, command.getValue()));
      }
    }
    List<Case> cases = new ArrayList<>();
    samples.forEach((label, runs) -> cases.add(new Case(label, median(runs, 0), median(runs, 1))));
    return new Result(cases, first, rounds);
  }

  /** Returns the section's text. */
  static String render(Result result) {
    StringBuilder out = new StringBuilder("## 6. Start-up of the command line\n\n")
        .append("The distribution the normal build writes, unpacked and run through `bin/tierlock` on this JVM, ")
        .append("against a hello-world on the same JVM, each case once per round, ").append(result.rounds())
        .append(" rounds, interleaved; medians. CPU is user plus system time of the process and its threads. ")
        .append("The first run, which writes the class-data-sharing archive, took ")
        .append(MarkdownTable.number(result.firstRunMillis())).append(" ms.\n\n");
    MarkdownTable table = new MarkdownTable("case", "wall (ms)", "CPU (ms)", "wall vs hello-world");
    for (Case c : result.cases()) {
      table.row(c.label(), MarkdownTable.number(c.wallMillis()), MarkdownTable.number(c.cpuMillis()),
          MarkdownTable.ratio(c.wallMillis() / result.hello().wallMillis()));
    }
    return out.append(table.render()).append('\n').toString();
  }

  /** Runs {@code command} in {@code directory}; returns its wall and CPU milliseconds. */
  private double[] run(Path directory, List<String> command) throws IOException, InterruptedException {
    List<String> shell = new ArrayList<>(List.of("sh", "-c", "\"$@\" >/dev/null 2>&1 || exit 97; times", "sh"));
    shell.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(shell).directory(directory.toFile()).redirectErrorStream(true);
    Map<String, String> environment = builder.environment();
    environment.keySet().removeIf(name -> name.startsWith("TIERLOCK_") || name.startsWith("AWS_")
        || name.startsWith("GOOGLE_") || name.endsWith("JAVA_OPTIONS") || name.equals("CLASSPATH"));
    environment.put("JAVA_HOME", System.getProperty("java.home"));
    environment.put("XDG_CACHE_HOME", work.resolve("cache").toString());
    long start = System.nanoTime();
    Process process = builder.start();
    String output;
    try (InputStream in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("Cannot measure " + command + ": it did not exit within 2 minutes");
    }
    double wall = (System.nanoTime() - start) / 1e6;
    if (process.exitValue() != 0) {
      throw new IllegalStateException("Cannot measure " + command + ": it exited " + process.exitValue());
    }
    // times prints the shell's own times, then its children's
    String[] lines = output.strip().split("\\R");
    Matcher children = TIMES.matcher(lines[lines.length - 1]);
    if (!children.find()) {
      throw new IllegalStateException("Cannot read the CPU time of " + command + " from: " + output);
    }
    double cpu = seconds(children.group(1), children.group(2)) + seconds(children.group(3), children.group(4));
    return new double[] {wall, cpu * 1000};
  }

  private static double seconds(String minutes, String seconds) {
    return Long.parseLong(minutes) * 60 + Double.parseDouble(seconds);
  }

  private static double median(List<double[]> runs, int column) {
    double[] values = runs.stream().mapToDouble(r -> r[column]).sorted().toArray();
    int n = values.length;
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }

  /** {@return the newest {@code tierlock-*.zip} that the build wrote into the command line's target} */
  private static Path distribution(Path module) throws IOException {
    Path target = module.resolveSibling("cli").resolve("target");
    try (Stream<Path> files = Files.list(target)) {
      return files.filter(p -> p.getFileName().toString().matches("tierlock-.*\\.zip"))
          .max(Comparator.comparing(p -> p.toFile().lastModified()))
          .orElseThrow(() -> new IllegalStateException("Cannot find the distribution in " + target
              + ": build it first (mvn -B -ntp -pl benchmarks -am package)"));
    } catch (java.nio.file.NoSuchFileException e) {
      throw new IllegalStateException("Cannot find the distribution: " + target + " does not exist", e);
    }
  }

  /** Unpacks {@code zip} into {@code into}; returns the directory holding {@code bin/}. */
  private static Path unpack(Path zip, Path into) throws IOException {
    Path home = null;
    try (ZipFile file = new ZipFile(zip.toFile())) {
      for (Enumeration<? extends ZipEntry> entries = file.entries(); entries.hasMoreElements(); ) {
        ZipEntry entry = entries.nextElement();
        Path to = into.resolve(entry.getName()).normalize();
        if (!to.startsWith(into)) {
          throw new IOException("Cannot unpack " + zip + ": entry " + entry.getName() + " leaves the directory");
        }
        if (entry.isDirectory()) {
          Files.createDirectories(to);
          continue;
        }
        Files.createDirectories(to.getParent());
        try (InputStream in = file.getInputStream(entry)) {
          Files.copy(in, to);
        }
        if (entry.getName().endsWith("/bin/tierlock")) {
          home = to.getParent().getParent();
        }
      }
    }
    if (home == null) {
      throw new IOException("Cannot use " + zip + ": it holds no bin/tierlock");
    }
    return home;
  }

  /** Compiles the hello-world into {@code directory}; returns the directory. */
  private static Path helloWorld(Path directory) throws IOException {
    Path source = directory.resolve("Hello.java");
    Files.writeString(source, "public class Hello { public static void main(String[] a) { System.out.println(\"hello\"); } }\n");
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    if (compiler == null || compiler.run(null, null, null, "-d", directory.toString(), source.toString()) != 0) {
      throw new UncheckedIOException(new IOException("Cannot compile the hello-world: this JVM has no compiler"));
    }
    return directory;
  }
}
