package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution's launcher ({@code src/dist/bin/tierlock}) on a layout like the distribution's
 * ({@code tierlock-cli.jar}, {@code lib/}), on the JVM running the tests: it trains its start-up
 * archive once, before the first command, whatever that command is; later commands load their
 * classes, picocli's included, from it; and a changed jar makes it train a new one in place of the
 * stale one.
 */
class LauncherArchiveTest {

  private static final Path LAUNCHER = Path.of("src/dist/bin/tierlock");
  private static final Path BUILT_PICOCLI = Path.of("target/lib");
  private static final FileTime BUILT = FileTime.fromMillis(1_700_000_000_000L);

  @TempDir Path temp;

  private record Run(int code, String out, String err) {}

  @Test
  void theFirstCommand_trainsTheArchive_andLaterOnesLoadPicocliAndTheCommandFromIt() throws Exception {
    Path install = layout();
    Path datastore = temp.resolve("datastore");
    Path checkout = Files.createDirectories(temp.resolve("checkout"));

    // the first command asks for the help only: the archive is trained on entries put and list all the same
    Run help = launch(install, null, "--help");
    assertThat(help.code()).as(help.err()).isZero();
    List<Path> archives = archives();
    assertThat(archives).as("one archive, trained before the first command").hasSize(1);
    FileTime trained = Files.getLastModifiedTime(archives.get(0));

    Run init = launch(install, null, "--datastore", datastore.toString(), "--checkout", checkout.toString(), "init");
    assertThat(init.code()).as(init.err()).isZero();
    Path log = temp.resolve("class-load.log");
    Run list = launch(install, "-Xlog:class+load=info:file=" + log,
        "--datastore", datastore.toString(), "--checkout", checkout.toString(), "entries", "list");
    assertThat(list.code()).as(list.err()).isZero();

    assertThat(archives()).as("the same archive, not trained again").containsExactlyElementsOf(archives);
    assertThat(Files.getLastModifiedTime(archives.get(0))).isEqualTo(trained);
    List<String> loaded = Files.readAllLines(log);
    assertThat(loaded).as("picocli's classes, every one from the archive")
        .filteredOn(line -> line.contains(" picocli.")).hasSizeGreaterThan(100)
        .allMatch(line -> line.contains("source: shared objects file"));
    assertThat(loaded).as("the command and the filesystem datastore, from the archive")
        .anyMatch(line -> line.contains(" dev.tierlock.cli.EntriesCommand source: shared objects file"))
        .anyMatch(line -> line.contains(" dev.tierlock.datastore.fs.FileSystemDatastore source: shared objects file"));
  }

  @Test
  void aChangedJar_makesItTrainANewArchive_inPlaceOfTheStaleOne() throws Exception {
    Path install = layout();
    Run first = launch(install, null, "--version");
    assertThat(first.code()).as(first.err()).isZero();
    List<Path> stale = archives();
    assertThat(stale).hasSize(1);

    // the command line's jar rebuilt with one more entry (its date kept: the name alone tells)
    cliJar(install, List.of("changed.txt"));
    Path log = temp.resolve("class-load.log");
    Run again = launch(install, "-Xlog:class+load=info:file=" + log, "--version");
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.out()).startsWith("tierlock ");

    List<Path> fresh = archives();
    assertThat(fresh).as("a new archive, the stale one deleted").hasSize(1).doesNotContainAnyElementsOf(stale);
    assertThat(Files.readAllLines(log)).as("and used at once")
        .anyMatch(line -> line.contains(" picocli.CommandLine source: shared objects file"));
  }

  /** Lays a distribution out in {@code temp/install}: bin/tierlock, tierlock-cli.jar and lib/, every entry a jar. */
  private Path layout() throws IOException {
    Path install = Files.createDirectories(temp.resolve("install"));
    Path bin = Files.createDirectories(install.resolve("bin"));
    Files.copy(LAUNCHER, bin.resolve("tierlock"));
    Path lib = Files.createDirectories(install.resolve("lib"));
    List<Path> entries = ModulePathLayout.runtimeEntries();
    for (Path entry : entries.subList(1, entries.size())) {
      String name = libName(entry);
      if (name.startsWith("picocli-")) {
        // the one the build compiles from picocli's sources, as the distribution ships it
        Files.copy(BUILT_PICOCLI.resolve(name), lib.resolve(name));
      } else if (Files.isDirectory(entry)) {
        jar(lib.resolve(name), List.of(entry), List.of(), List.of());
      } else {
        Files.createSymbolicLink(lib.resolve(name), entry.toAbsolutePath());
      }
    }
    cliJar(install, List.of());
    return install;
  }

  /** Writes {@code install/tierlock-cli.jar}: the command line's classes, its Class-Path naming lib/'s jars. */
  private static void cliJar(Path install, List<String> extra) throws IOException {
    List<Path> entries = ModulePathLayout.runtimeEntries();
    List<String> classPath = entries.subList(1, entries.size()).stream().map(entry -> "lib/" + libName(entry)).toList();
    jar(install.resolve("tierlock-cli.jar"), List.of(entries.get(0)), classPath, extra);
  }

  /** {@return the name of a runtime entry's jar in lib/: its own, or its module's for a class directory} */
  private static String libName(Path entry) {
    return Files.isDirectory(entry) ? entry.getParent().getParent().getFileName() + ".jar" : entry.getFileName().toString();
  }

  /** Writes a jar of {@code directories}' files (and empty {@code extra} entries) naming {@code classPath}. */
  private static void jar(Path jar, List<Path> directories, List<String> classPath, List<String> extra) throws IOException {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    if (!classPath.isEmpty()) {
      manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", classPath));
      manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, TierlockCli.class.getName());
    }
    Path written = jar.resolveSibling(jar.getFileName() + ".new");
    try (OutputStream file = Files.newOutputStream(written); JarOutputStream out = new JarOutputStream(file, manifest)) {
      for (Path directory : directories) {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(directory)) {
          files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path path : files) {
          out.putNextEntry(new JarEntry(directory.relativize(path).toString().replace('\\', '/')));
          Files.copy(path, out);
          out.closeEntry();
        }
      }
      for (String name : extra) {
        out.putNextEntry(new JarEntry(name));
        out.closeEntry();
      }
    }
    Files.move(written, jar, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.setLastModifiedTime(jar, BUILT);
  }

  /** {@return the archives in the launcher's cache, sorted} */
  private List<Path> archives() throws IOException {
    Path cache = temp.resolve("cache/tierlock");
    if (!Files.isDirectory(cache)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(cache)) {
      return files.filter(p -> p.getFileName().toString().matches("cli-.*\\.(jsa|aot)")).sorted().toList();
    }
  }

  /** Runs the launcher in {@code temp} on the test's JVM, its cache in {@code temp/cache}. */
  private Run launch(Path install, String javaOptions, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("sh", install.resolve("bin/tierlock").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(temp.toFile());
    Map<String, String> env = builder.environment();
    env.remove("TIERLOCK_JAVA_OPTS");
    env.remove("TIERLOCK_CLI_JAR");
    env.remove("TIERLOCK_HOME");
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("XDG_CACHE_HOME", temp.resolve("cache").toString());
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
    if (javaOptions != null) {
      env.put("TIERLOCK_JAVA_OPTS", javaOptions);
    }
    Path out = temp.resolve("out.txt");
    Path err = temp.resolve("err.txt");
    Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the launcher did not finish in 120 s: " + command);
    }
    return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
  }
}
