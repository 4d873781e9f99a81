package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README documents every error code the code has, and the command line's exit codes as {@link
 * ExitCodes} and the help list them: read from the sources, so a new code cannot go undocumented.
 */
class ReadmeCodesTest {

  private static final Path ROOT = Path.of("..");
  /** A code constant of an exception type: {@code CODE}, or one per case ({@code LIMIT = "archive_limit"}). */
  private static final Pattern CODE = Pattern.compile("String [A-Z_]+ = \"([a-z_]+)\"");

  @Test
  void everyErrorCodeOfTheLibraryAndTheCommandLine_isInTheReadme() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    TreeSet<String> codes = new TreeSet<>();
    try (Stream<Path> sources = Stream.of("core", "cli").flatMap(m -> walk(ROOT.resolve(m).resolve("src/main/java")))) {
      sources.filter(p -> p.toString().endsWith("Exception.java")).forEach(p -> {
        Matcher m = CODE.matcher(read(p));
        while (m.find()) {
          codes.add(m.group(1));
        }
      });
    }
    codes.addAll(List.of("invalid_input", "not_found", "internal"));
    assertThat(codes).hasSizeGreaterThan(25);

    assertThat(codes.stream().filter(c -> !c.startsWith("archive_") && !readme.contains("`" + c + "`")
        && !readme.contains("`[" + c + "]`")).toList()).as("codes the README does not name").isEmpty();
  }

  @Test
  void theReadmesExitCodeTable_isTheHelpsList() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    for (int code : List.of(ExitCodes.OK, ExitCodes.FAILURE, ExitCodes.USAGE, ExitCodes.NOT_FOUND, ExitCodes.CONFLICT,
        ExitCodes.UNAVAILABLE, ExitCodes.TEMPORARY)) {
      assertThat(readme).as("exit code %s", code).contains("| " + code + " | ");
      assertThat(TierlockCli.class.getAnnotation(picocli.CommandLine.Command.class).exitCodeList())
          .anyMatch(line -> line.startsWith(code + ":"));
    }
  }

  private static Stream<Path> walk(Path dir) {
    try {
      return Files.walk(dir).toList().stream();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
