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
import java.util.Optional;
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
   * The cases on one JVM.
   *
   * @param jvm what the report calls the JVM, e.g. {@code JDK 17}
   * @param cases the hello-world first, then the command line's cases
   * @param firstRunMillis the wall time of the launcher's first run, which may write its archive
   * @param archives the archive files the launcher left in its cache directory (names), none if it wrote none
   * @param target the case the start-up target is judged on
   */
  record Jvm(String jvm, List<Case> cases, double firstRunMillis, List<String> archives, Case target) {

    /** {@return the hello-world's case, the baseline} */
    Case hello() {
      return cases.get(0);
    }
  }

  /**
   * What the section measured.
   *
   * @param jvms each JVM's cases: this one first (JDK 17), then JDK 25 when it is installed
   * @param rounds how many times each case ran
   * @param missing why a JVM was left out, if one was
   */
  record Result(List<Jvm> jvms, int rounds, Optional<String> missing) {

    /** Returns the cases of the JVM whose feature version is {@code feature}, if measured. */
    Optional<Jvm> jvm(int feature) {
      return jvms.stream().filter(j -> j.jvm().equals("JDK " + feature)).findFirst();
    }
  }

  /** Where JDK 25 is installed on the benchmark machines. */
  static final Path JDK_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");

  private static final Pattern TIMES = Pattern.compile("(\\d+)m([\\d.]+)s\\s+(\\d+)m([\\d.]+)s");

  private final Path work;
  private final int rounds;

  StartupSection(Path work, int rounds) {
    this.work = work;
    this.rounds = rounds;
  }

  /** Unpacks the distribution next to {@code module}, then runs every case of every JVM {@link #rounds} times. */
  Result measure(Path module) throws IOException, InterruptedException {
    Path home = unpack(distribution(module), Files.createDirectories(work.resolve("distribution")));
    Path hello = helloWorld(Files.createDirectories(work.resolve("hello")));
    List<Jvm> jvms = new ArrayList<>();
    jvms.add(jvm("JDK " + Runtime.version().feature(), Path.of(System.getProperty("java.home")), home, hello, false));
    Optional<String> missing = Optional.empty();
    if (Files.isExecutable(JDK_25.resolve("bin/java"))) {
      jvms.add(jvm("JDK 25", JDK_25, home, hello, true));
    } else {
      missing = Optional.of("JDK 25 is not installed at " + JDK_25);
    }
    return new Result(jvms, rounds, missing);
  }

  /**
   * Measures the cases on the JVM at {@code javaHome}; with {@code aot}, also {@code java -jar} with
   * an AOT cache this section trains on {@code entries list} ({@code -XX:AOTCacheOutput}).
   */
  private Jvm jvm(String label, Path javaHome, Path home, Path hello, boolean aot)
      throws IOException, InterruptedException {
    Path dir = Files.createDirectories(work.resolve(label.replace(' ', '-')));
    Path checkout = Files.createDirectories(dir.resolve("checkout"));
    Path cache = dir.resolve("cache");
    String java = javaHome.resolve("bin/java").toString();
    String launcher = home.resolve("bin/tierlock").toString();
    String jar = home.resolve("tierlock-cli.jar").toString();
    Map<String, List<String>> commands = new LinkedHashMap<>();
    commands.put("Java hello-world (`java -Xshare:auto -cp . Hello`)", List.of(java, "-Xshare:auto", "-cp", hello.toString(), "Hello"));
    commands.put("`bin/tierlock entries list`, the embedded default, 1 entry", List.of("sh", launcher, "entries", "list"));
    commands.put("`bin/tierlock --version` (every command modelled, no datastore opened)", List.of("sh", launcher, "--version"));
    commands.put("`java -jar tierlock-cli.jar entries list` (no archive of its own)", List.of(java, "-jar", jar, "entries", "list"));

    run(checkout, javaHome, cache, List.of("sh", launcher, "entries", "put", "@bench/hello", "1.0.0"));
    double first = run(checkout, javaHome, cache, List.of("sh", launcher, "entries", "list"))[0];
    String aotLabel = "`java -XX:AOTCache=... -jar tierlock-cli.jar entries list` (a cache this benchmark trained on it)";
    if (aot) {
      Path file = dir.resolve("entries-list.aot");
      run(checkout, javaHome, cache, List.of(java, "-XX:AOTCacheOutput=" + file, "-jar", jar, "entries", "list"));
      commands.put(aotLabel, List.of(java, "-XX:AOTCache=" + file, "-jar", jar, "entries", "list"));
    }
    Map<String, List<double[]>> samples = new LinkedHashMap<>();
    commands.keySet().forEach(c -> samples.put(c, new ArrayList<>()));
    for (int round = 0; round < rounds; round++) {
      for (Map.Entry<String, List<String>> command : commands.entrySet()) {
        samples.get(command.getKey()).add(run(checkout, javaHome, cache, command.getValue()));
      }
    }
    List<Case> cases = new ArrayList<>();
    samples.forEach((c, runs) -> cases.add(new Case(c, median(runs, 0), median(runs, 1))));
    List<String> archives = archives(cache);
    boolean launcherAot = archives.stream().anyMatch(n -> n.endsWith(".aot"));
    Case target = aot && !launcherAot ? cases.get(cases.size() - 1) : cases.get(1);
    return new Jvm(label, cases, first, archives, target);
  }

  /** Returns the names of the files the launcher left under {@code cache}. */
  private static List<String> archives(Path cache) throws IOException {
    if (!Files.isDirectory(cache)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(cache)) {
      return files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /** Returns the section's text. */
  static String render(Result result) {
    StringBuilder out = new StringBuilder("## 6. Start-up of the command line\n\n")
        .append("The distribution the normal build writes, unpacked and run through `bin/tierlock` (its `JAVA_HOME` ")
        .append("set to the JVM named), against a hello-world on the same JVM, each case once per round, ")
        .append(result.rounds()).append(" rounds, interleaved; medians. CPU is user plus system time of the process ")
        .append("and its threads. On JDK 25 a cache trained by this benchmark (`-XX:AOTCacheOutput`, one run of ")
        .append("`entries list`) is measured too; the JDK 25 target is judged on the launcher when it leaves an AOT ")
        .append("cache (`*.aot`) of its own, else on that trained cache.");
    result.missing().ifPresent(m -> out.append(" ").append(m).append(": not measured."));
    out.append("\n\n");
    for (Jvm jvm : result.jvms()) {
      out.append("**").append(jvm.jvm()).append("**: the launcher's first run took ")
          .append(MarkdownTable.number(jvm.firstRunMillis())).append(" ms; it left ")
          .append(jvm.archives().isEmpty() ? "no archive" : "`" + String.join("`, `", jvm.archives()) + "`")
          .append(" in its cache directory.\n\n");
      MarkdownTable table = new MarkdownTable("case", "wall (ms)", "CPU (ms)", "wall vs hello-world");
      for (Case c : jvm.cases()) {
        table.row(c.label(), MarkdownTable.number(c.wallMillis()), MarkdownTable.number(c.cpuMillis()),
            MarkdownTable.ratio(c.wallMillis() / jvm.hello().wallMillis()));
      }
      out.append(table.render()).append('\n');
    }
    return out.toString();
  }

  /** Runs {@code command} in {@code directory}; returns its wall and CPU milliseconds. */
  private double[] run(Path directory, Path javaHome, Path cache, List<String> command)
      throws IOException, InterruptedException {
    List<String> shell = new ArrayList<>(List.of("sh", "-c", "\"$@\" >/dev/null 2>&1 || exit 97; times", "sh"));
    shell.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(shell).directory(directory.toFile()).redirectErrorStream(true);
    Map<String, String> environment = builder.environment();
    environment.keySet().removeIf(name -> name.startsWith("TIERLOCK_") || name.startsWith("AWS_")
        || name.startsWith("GOOGLE_") || name.endsWith("JAVA_OPTIONS") || name.equals("CLASSPATH"));
    environment.put("JAVA_HOME", javaHome.toString());
    environment.put("XDG_CACHE_HOME", cache.toString());
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
    if (compiler == null || compiler.run(null, null, null, "--release", "17", "-d", directory.toString(), source.toString()) != 0) {
      throw new UncheckedIOException(new IOException("Cannot compile the hello-world: this JVM has no compiler"));
    }
    return directory;
  }
}
