package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository's {@code ./tierlock} on a layout like the repository's, with a Maven on the PATH
 * that prints what Maven 3.8.7 prints under {@code -B} (reset codes at its start and end included,
 * its levels coloured unless told {@code -Dstyle.color=never}) and a launcher that prints its
 * arguments: on a pipe, stderr tells the first build's download size, one line per module built and
 * the files and megabytes fetched, and holds no escape code; the build runs once, and again only for
 * sources or a parent pom newer than the jar; a failed build says why, exits with Maven's code and
 * runs nothing.
 */
class LauncherScriptTest {

  private static final Path SCRIPT = Path.of("../tierlock");
  private static final FileTime SOURCES = FileTime.fromMillis(1_700_000_000_000L);
  private static final FileTime BUILT = FileTime.fromMillis(1_700_003_600_000L);
  private static final String RESET = "\u001b[0m\u001b[0m";

  /** What the stub Maven prints for a build of four modules that fetches six files (4.3 MB in all). */
  private static final List<String> BUILD = List.of(
      RESET + "[INFO] Scanning for projects...",
      "[INFO] Downloading from central: https://repo.maven.apache.org/maven2/org/apache/apache/33/apache-33.pom",
      "[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/apache/apache/33/apache-33.pom (24 kB at 310 kB/s)",
      "[INFO] ------------------------------------------------------------------------",
      "[INFO] Reactor Build Order:",
      "[INFO] ",
      "[INFO] Tierlock                                                           [pom]",
      "[INFO] Tierlock core                                                      [jar]",
      "[INFO] Tierlock filesystem datastore                                      [jar]",
      "[INFO] Tierlock CLI                                                       [jar]",
      "[INFO] ",
      "[INFO] --------------------< dev.tierlock:tierlock-parent >--------------------",
      "[INFO] Building Tierlock 0.1.0-SNAPSHOT                                   [1/4]",
      "[INFO] --------------------------------[ pom ]---------------------------------",
      "[INFO] Downloading from central: https://repo.maven.apache.org/maven2/org/apache/maven/plugins/maven-enforcer-plugin/3.5.0/maven-enforcer-plugin-3.5.0.pom",
      "[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/apache/maven/plugins/maven-enforcer-plugin/3.5.0/maven-enforcer-plugin-3.5.0.pom (7.3 kB at 120 kB/s)",
      "[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/apache/maven/plugins/maven-metadata.xml (512 B at 9.8 kB/s)",
      "[INFO] ",
      "[INFO] ---------------------< dev.tierlock:tierlock-core >---------------------",
      "[INFO] Building Tierlock core 0.1.0-SNAPSHOT                              [2/4]",
      "[INFO] --------------------------------[ jar ]---------------------------------",
      "[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/com/fasterxml/jackson/core/jackson-databind/2.17.2/jackson-databind-2.17.2.jar (1.6 MB at 4.1 MB/s)",
      "[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/com/fasterxml/jackson/core/jackson-core/2.17.2/jackson-core-2.17.2.jar (580 kB at 3.2 MB/s)",
      "[WARNING] The requested profile \"quick\" could not be activated because it does not exist.",
      "[INFO] ",
      "[INFO] --------------< dev.tierlock:tierlock-datastore-fs >---------------",
      "[INFO] Building Tierlock filesystem datastore 0.1.0-SNAPSHOT              [3/4]",
      "[INFO] --------------------------------[ jar ]---------------------------------",
      "[INFO] ",
      "[INFO] ---------------------< dev.tierlock:tierlock-cli >----------------------",
      "[INFO] Building Tierlock CLI 0.1.0-SNAPSHOT                               [4/4]",
      "[INFO] --------------------------------[ jar ]---------------------------------",
      "[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/info/picocli/picocli/4.7.6/picocli-4.7.6-sources.jar (2.1 MB at 5.0 MB/s)",
      "[INFO] Building jar: /repo/cli/target/tierlock-cli.jar",
      "[INFO] ------------------------------------------------------------------------",
      "[INFO] BUILD SUCCESS",
      "[INFO] ------------------------------------------------------------------------");

  @TempDir Path temp;
  private Path repo;
  private Path calls;

  private record Run(int code, String out, String err) {}

  @BeforeEach
  void bashAndAwk() {
    assumeTrue(onPath("bash") && onPath("awk"), "./tierlock needs bash and awk");
  }

  @Test
  void theFirstRun_buildsOnce_withProgressOnACleanStderr_andRunsTheLauncher() throws Exception {
    layout();
    mvn(BUILD, 0);

    Run run = run("entries", "put", "@acme/hello", "1.0.0", "--checkout", "a dir");

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.err()).as("no escape code on a pipe").doesNotContain("\u001b").doesNotContain("[0m");
    List<String> err = run.err().lines().toList();
    assertThat(err).as(run.err()).hasSize(7);
    assertThat(err.get(0)).matches("tierlock: building the command line once .*the first build downloads about \\d+ MB.*");
    assertThat(err.subList(1, err.size())).as("one line per module, then the files and megabytes fetched").containsExactly(
        "tierlock: fetched 1 files, 0.0 MB; building Tierlock 0.1.0-SNAPSHOT (1/4)",
        "tierlock: fetched 3 files, 0.0 MB; building Tierlock core 0.1.0-SNAPSHOT (2/4)",
        "tierlock: fetched 5 files, 2.2 MB; building Tierlock filesystem datastore 0.1.0-SNAPSHOT (3/4)",
        "tierlock: fetched 5 files, 2.2 MB; building Tierlock CLI 0.1.0-SNAPSHOT (4/4)",
        "tierlock: fetched 6 files, 4.3 MB from Maven Central",
        "tierlock: built " + jar());
    assertThat(run.out().lines()).as("the launcher, on the jar just built, with the arguments as given").containsExactly(
        "launcher: " + jar(), "arg: entries", "arg: put", "arg: @acme/hello", "arg: 1.0.0", "arg: --checkout", "arg: a dir");
    assertThat(mvnCalls()).singleElement().satisfies(args -> assertThat(args)
        .contains("-B", "-Dstyle.color=never", "-DskipTests", "package").containsSubsequence("-pl", "cli", "-am"));
  }

  @Test
  void aJarNewerThanTheSources_isRunWithoutMaven_andANewerSourceOrPomBuildsAgain() throws Exception {
    layout();
    mvn(BUILD, 0);
    assertThat(run("--version").code()).isZero();
    assertThat(mvnCalls()).hasSize(1);
    Files.setLastModifiedTime(jar(), BUILT);

    Run again = run("entries", "list");
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.err()).as("nothing to build, nothing said").isEmpty();
    assertThat(again.out().lines()).containsExactly("launcher: " + jar(), "arg: entries", "arg: list");
    assertThat(mvnCalls()).as("Maven not called again").hasSize(1);

    Files.setLastModifiedTime(repo.resolve("core/src/main/java/dev/tierlock/Core.java"), FileTime.fromMillis(BUILT.toMillis() + 1_000));
    Run changedSource = run("entries", "list");
    assertThat(changedSource.code()).as(changedSource.err()).isZero();
    assertThat(changedSource.err()).contains("tierlock: building the command line once");
    assertThat(mvnCalls()).as("a source newer than the jar").hasSize(2);

    Files.setLastModifiedTime(jar(), FileTime.fromMillis(BUILT.toMillis() + 2_000));
    Files.setLastModifiedTime(repo.resolve("pom.xml"), FileTime.fromMillis(BUILT.toMillis() + 3_000));
    assertThat(run("entries", "list").code()).isZero();
    assertThat(mvnCalls()).as("the parent pom newer than the jar").hasSize(3);

    Files.setLastModifiedTime(jar(), FileTime.fromMillis(BUILT.toMillis() + 4_000));
    Files.setLastModifiedTime(repo.resolve("cli/pom.xml"), FileTime.fromMillis(BUILT.toMillis() + 5_000));
    assertThat(run("entries", "list").code()).isZero();
    assertThat(mvnCalls()).as("a module's pom newer than the jar").hasSize(4);
  }

  @Test
  void aBuildThatLeavesTheJarAlone_marksItFresh_soTheNextRunIsWithoutMaven() throws Exception {
    layout();
    mvn(BUILD, 0);
    assertThat(run("--version").code()).isZero();
    Files.setLastModifiedTime(jar(), BUILT);
    // a module the command line's build does not build, edited after the jar
    Path benchmark = repo.resolve("benchmarks/src/main/java/dev/tierlock/benchmarks/Bench.java");
    Files.createDirectories(benchmark.getParent());
    Files.writeString(benchmark, "// Bench.java\n");
    for (Path path = benchmark; !path.equals(repo); path = path.getParent()) {
      Files.setLastModifiedTime(path, FileTime.fromMillis(BUILT.toMillis() + 1_000));
    }

    assertThat(run("entries", "list").code()).isZero();
    assertThat(mvnCalls()).as("built again for the newer file").hasSize(2);
    Run next = run("entries", "list");
    assertThat(next.code()).as(next.err()).isZero();
    assertThat(next.err()).isEmpty();
    assertThat(mvnCalls()).as("the build found nothing to do; Maven not called a third time").hasSize(2);
  }

  @Test
  void aFailedBuild_printsMavensErrors_exitsWithItsCode_andRunsNothing() throws Exception {
    layout();
    List<String> failing = new ArrayList<>(upTo("[INFO] --------------< dev.tierlock:tierlock-datastore-fs"));
    failing.add("[INFO] BUILD FAILURE");
    failing.add("[ERROR] something");
    mvn(failing, 1);

    Run run = run("entries", "list");

    assertThat(run.code()).as(run.err()).isEqualTo(1);
    List<String> err = run.err().lines().toList();
    assertThat(err).as(run.err()).contains("[ERROR] something")
        .anyMatch(line -> line.startsWith("tierlock: the build failed (mvn exit 1); the whole log: "));
    assertThat(run.err()).doesNotContain("\u001b").doesNotContain("[0m");
    assertThat(run.out()).as("the launcher not run").isEmpty();
    assertThat(Files.exists(jar())).isFalse();
  }

  @Test
  void aBuildThatDiesWithoutAnError_printsTheWholeLogFreeOfEscapeCodes() throws Exception {
    layout();
    mvn(upTo("[WARNING]"), 137);

    Run run = run("entries", "list");

    assertThat(run.code()).as(run.err()).isEqualTo(137);
    List<String> err = run.err().lines().toList();
    assertThat(err).as("the whole log, then where it is").contains(
        "[INFO] Scanning for projects...",
        "[INFO] Building Tierlock core 0.1.0-SNAPSHOT                              [2/4]",
        "[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/com/fasterxml/jackson/core/jackson-databind/2.17.2/jackson-databind-2.17.2.jar (1.6 MB at 4.1 MB/s)");
    String last = err.get(err.size() - 1);
    assertThat(last).startsWith("tierlock: the build failed (mvn exit 137); the whole log: ");
    Path log = Path.of(last.substring(last.indexOf(": /") + 2));
    assertThat(log).startsWith(temp.resolve("tmp"));
    assertThat(Files.readAllLines(log)).as("the log kept").contains("[INFO] Scanning for projects...");
    assertThat(run.err()).as("no escape code, Maven's resets included").doesNotContain("\u001b").doesNotContain("[0m");
    assertThat(run.out()).isEmpty();
  }

  /** {@return the stub build's lines before the first that starts with {@code prefix}} */
  private static List<String> upTo(String prefix) {
    return BUILD.stream().takeWhile(line -> !line.startsWith(prefix)).toList();
  }

  /** Lays the repository out in {@code temp/repo}: the script, the parent pom, sources, the launcher a stub. */
  private void layout() throws IOException {
    repo = Files.createDirectories(temp.resolve("repo"));
    Files.createDirectories(temp.resolve("tmp"));
    calls = temp.resolve("mvn-calls.txt");
    executable(repo.resolve("tierlock"), Files.readString(SCRIPT));
    for (String source : List.of("pom.xml", "cli/pom.xml", "core/src/main/java/dev/tierlock/Core.java",
        "cli/src/main/java/dev/tierlock/cli/TierlockCli.java")) {
      Files.createDirectories(repo.resolve(source).getParent());
      Files.writeString(repo.resolve(source), "// " + source + "\n");
    }
    executable(repo.resolve("cli/src/dist/bin/tierlock"), """
        #!/bin/sh
        echo "launcher: $TIERLOCK_CLI_JAR"
        for arg in "$@"; do echo "arg: $arg"; done
        """);
    // the directories too: one newer than the jar (a file added or removed there) builds again
    try (Stream<Path> paths = Files.walk(repo)) {
      for (Path path : paths.toList()) {
        Files.setLastModifiedTime(path, SOURCES);
      }
    }
  }

  /**
   * Puts a Maven first on the PATH that records its arguments (one line a call), prints {@code lines}
   * as Maven 3.8.7 does (a reset code at the end with no newline; the levels coloured unless told
   * {@code -Dstyle.color=never}), writes the command line's jar when it succeeds and there is none
   * (Maven leaves an up-to-date jar alone, its date too) and exits with {@code code}.
   */
  private void mvn(List<String> lines, int code) throws IOException {
    Path bin = Files.createDirectories(temp.resolve("bin"));
    String plain = String.join("\n", lines) + "\n" + RESET;
    Files.writeString(bin.resolve("plain.txt"), plain);
    Files.writeString(bin.resolve("coloured.txt"),
        plain.replaceAll("(?m)^((?:\u001b\\[0m)*)\\[(INFO|WARNING|ERROR)\\]", "$1[\u001b[1;34m$2\u001b[m]"));
    executable(bin.resolve("mvn"), """
        #!/bin/sh
        echo "$*" >> '%s'
        output=coloured.txt
        for arg in "$@"; do [ "$arg" = -Dstyle.color=never ] && output=plain.txt; done
        cat '%s'/$output
        [ %d -eq 0 ] && mkdir -p cli/target && { [ -f cli/target/tierlock-cli.jar ] || : > cli/target/tierlock-cli.jar; }
        exit %d
        """.formatted(calls, bin, code, code));
  }

  private static void executable(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private Path jar() {
    return repo.resolve("cli/target/tierlock-cli.jar");
  }

  /** {@return each call's arguments, in order} */
  private List<List<String>> mvnCalls() throws IOException {
    return Files.exists(calls) ? Files.readAllLines(calls).stream().map(line -> List.of(line.split(" "))).toList() : List.of();
  }

  /** Runs {@code ./tierlock} from {@code temp}, the stub Maven first on the PATH, stderr a pipe. */
  private Run run(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(repo.resolve("tierlock").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(temp.toFile());
    Map<String, String> env = builder.environment();
    env.remove("TIERLOCK_CLI_JAR");
    env.put("PATH", temp.resolve("bin") + File.pathSeparator + env.getOrDefault("PATH", "/usr/bin:/bin"));
    env.put("TMPDIR", temp.resolve("tmp").toString());
    Path out = temp.resolve("out.txt");
    Process process = builder.redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.PIPE).start();
    CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> {
      try {
        return new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("./tierlock did not finish in 60 s: " + command);
    }
    return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), err.get(60, TimeUnit.SECONDS));
  }

  private static boolean onPath(String name) {
    try (Stream<String> dirs = Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))) {
      return dirs.anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, name)));
    }
  }
}
