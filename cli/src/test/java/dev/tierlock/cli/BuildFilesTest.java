package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a consumer's build takes from Tierlock's build files: the BOM's JUnit is the one the testkit
 * is built and tested with, the README's Maven snippet sets what Maven's defaults lack, builds are
 * reproducible and the release profile is there. (.ci/run builds a consumer project from the
 * snippet, and builds twice to compare the artifacts.)
 */
class BuildFilesTest {

  private static final Path ROOT = Path.of("..");

  @Test
  void theBomsJUnit_isTheParentsJUnit() throws IOException {
    String parent = Files.readString(ROOT.resolve("pom.xml"));
    String bom = Files.readString(ROOT.resolve("bom/pom.xml"));
    Matcher version = Pattern.compile("<junit.version>([^<]+)</junit.version>").matcher(parent);
    assertThat(version.find()).as("the parent's junit.version").isTrue();

    assertThat(bom).containsPattern("<artifactId>junit-bom</artifactId>\\s*<version>" + Pattern.quote(version.group(1))
        + "</version>\\s*<type>pom</type>\\s*<scope>import</scope>");
  }

  @Test
  void theReadmesMavenSnippet_setsWhatMavensDefaultsLack() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    int start = readme.indexOf("## Use it from Maven");
    String snippet = readme.substring(readme.indexOf("```xml", start), readme.indexOf("```\n", readme.indexOf("```xml", start) + 6));

    assertThat(snippet).contains("<maven.compiler.release>17</maven.compiler.release>")
        .contains("<artifactId>tierlock-bom</artifactId>")
        .contains("<artifactId>junit-jupiter</artifactId>")
        .containsPattern("<artifactId>maven-compiler-plugin</artifactId>\\s*<version>3\\.")
        .containsPattern("<artifactId>maven-surefire-plugin</artifactId>\\s*<version>3\\.");
  }

  @Test
  void buildsAreReproducible_andTheReleaseProfileSigns() throws IOException {
    String parent = Files.readString(ROOT.resolve("pom.xml"));

    assertThat(parent).containsPattern("<project.build.outputTimestamp>\\d{4}-\\d\\d-\\d\\dT[0-9:]+Z</project.build.outputTimestamp>")
        .contains("<id>release</id>").contains("<artifactId>maven-gpg-plugin</artifactId>")
        .contains("<artifactId>central-publishing-maven-plugin</artifactId>");
    assertThat(Files.readString(ROOT.resolve(".gitignore")).lines()).as("the demo's install directory")
        .contains("/extensions/");
  }

  @Test
  void theOperatorGuide_listsEveryCommand() throws IOException {
    String guide = Files.readString(ROOT.resolve("docs/operator-guide.md"));
    String list = guide.substring(guide.indexOf("## The command line"), guide.indexOf("```\n", guide.indexOf("```sh",
        guide.indexOf("## The command line")) + 5));

    List<String> commands = TierlockCli.COMMANDS.stream()
        .map(c -> c.getAnnotation(picocli.CommandLine.Command.class).name()).toList();

    assertThat(commands).hasSizeGreaterThan(10).contains("entries", "converge", "doctor");
    assertThat(commands).allSatisfy(command -> assertThat(list).as("the guide's list")
        .containsPattern("(?m)^tierlock " + Pattern.quote(command) + "\\b"));
  }
}
