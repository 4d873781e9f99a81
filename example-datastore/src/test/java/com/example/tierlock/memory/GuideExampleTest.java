package com.example.tierlock.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * Holds docs/datastore-guide.md and this module to one text: every file the guide's worked example
 * shows is this module's file, byte for byte; its usage snippet is what {@link
 * MemoryDatastoreProviderTest} runs; and the guide and the README name every contract the testkit
 * offers in a table with its count of cases, and their total, each of which this module runs.
 */
class GuideExampleTest {

  private static final String PACKAGE = "com/example/tierlock/memory/";
  private static final Pattern SHOWN = Pattern.compile("`(src/[^`]+)`:\\n\\n```(?:java)?\\n(.*?)```", Pattern.DOTALL);

  private static String guide() throws IOException {
    return Files.readString(Path.of(System.getProperty("tierlock.guide")), StandardCharsets.UTF_8);
  }

  private static Path module() {
    return Path.of(System.getProperty("tierlock.guide")).getParent().getParent().resolve("example-datastore");
  }

  @Test
  void everyFileTheGuideShows_isThisModulesFile_byteForByte() throws IOException {
    Matcher shown = SHOWN.matcher(guide());
    List<String> paths = new ArrayList<>();
    while (shown.find()) {
      paths.add(shown.group(1));
      assertThat(Files.readString(module().resolve(shown.group(1)), StandardCharsets.UTF_8))
          .as("the guide's %s", shown.group(1)).isEqualTo(shown.group(2));
    }
    assertThat(paths).contains("src/main/java/module-info.java",
        "src/main/java/" + PACKAGE + "MemoryDatastore.java",
        "src/main/java/" + PACKAGE + "MemoryDatastoreProvider.java",
        "src/main/resources/META-INF/services/dev.tierlock.spi.DatastoreProvider",
        "src/test/java/" + PACKAGE + "MemoryDatastoreContractTest.java");
    Matcher fragment = Pattern.compile("```java\\n(class (Memory\\w+Test) extends .*?)```", Pattern.DOTALL)
        .matcher(guide());
    assertThat(fragment.find()).as("the guide shows a second contract test").isTrue();
    assertThat(Files.readString(module().resolve("src/test/java/" + PACKAGE + fragment.group(2) + ".java"),
        StandardCharsets.UTF_8)).as("the guide's %s", fragment.group(2)).endsWith(fragment.group(1));
  }

  @Test
  void theGuidesUsage_isWhatTheProviderTestRuns() throws IOException {
    String guide = guide();
    int at = guide.indexOf("Then use it like any other store:");
    Matcher block = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(guide);
    assertThat(block.find(at)).as("the usage snippet").isTrue();
    List<String> snippet = trimmed(block.group(1));
    snippet = snippet.subList(0, snippet.size() - 1);  // up to its closing brace, where the test asserts
    List<String> test = trimmed(Files.readString(module().resolve("src/test/java/" + PACKAGE
        + "MemoryDatastoreProviderTest.java"), StandardCharsets.UTF_8));
    assertThat(Collections.indexOfSubList(test, snippet)).as("the snippet, line for line, in the test").isNotNegative();
  }

  @Test
  void theGuideAndTheReadmeNameEveryContract_withItsCountOfCases_andThisModuleRunsEach() throws Exception {
    Map<String, Integer> contracts = contracts();
    String guide = guide().replaceAll("\\s+", " ");
    String readme = Files.readString(module().getParent().resolve("README.md"), StandardCharsets.UTF_8)
        .replaceAll("\\s+", " ");
    for (Map.Entry<String, Integer> each : contracts.entrySet()) {
      String contract = each.getKey();
      assertThat(guide).as("the guide's contract table: %s and its cases", contract)
          .contains("| `" + contract + "` | " + each.getValue() + " |");
      assertThat(readme).as("the README's contract table: %s and its cases", contract)
          .contains("| `" + contract + "` | " + each.getValue() + " |");
      Class<?> test = Class.forName("com.example.tierlock.memory.Memory" + contract.replace("Contract", "")
          + "ContractTest");
      assertThat(test.getSuperclass().getSimpleName()).isEqualTo(contract);
    }
    int cases = contracts.values().stream().mapToInt(Integer::intValue).sum();
    assertThat(guide).contains(words(contracts.size()) + " contracts, each")
        .contains("passes all " + words(contracts.size()) + " contracts (" + cases + " cases)");
    assertThat(readme).contains("(" + words(contracts.size()) + " contracts, " + cases + " cases;");
  }

  /** Returns the testkit's contracts, each with its count of test cases. */
  private static Map<String, Integer> contracts() throws IOException, URISyntaxException, ClassNotFoundException {
    Path testkit = Path.of(dev.tierlock.testkit.DatastoreContract.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI());
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(testkit)) {
      try (Stream<Path> files = Files.list(testkit.resolve("dev/tierlock/testkit"))) {
        files.map(p -> p.getFileName().toString()).forEach(names::add);
      }
    } else {
      try (ZipFile jar = new ZipFile(testkit.toFile())) {
        jar.stream().map(e -> e.getName()).filter(n -> n.startsWith("dev/tierlock/testkit/") && n.indexOf('/', 21) < 0)
            .map(n -> n.substring(21)).forEach(names::add);
      }
    }
    Map<String, Integer> contracts = new TreeMap<>();
    for (String file : names) {
      if (file.endsWith("Contract.class")) {
        Class<?> type = Class.forName("dev.tierlock.testkit." + file.substring(0, file.length() - 6));
        if (Modifier.isPublic(type.getModifiers()) && Modifier.isAbstract(type.getModifiers())) {
          contracts.put(type.getSimpleName(), (int) Arrays.stream(type.getDeclaredMethods())
              .filter(GuideExampleTest::isTest).count());
        }
      }
    }
    assertThat(contracts).as("the testkit's contracts").isNotEmpty();
    return contracts;
  }

  private static boolean isTest(Method method) {
    return method.isAnnotationPresent(Test.class);
  }

  private static List<String> trimmed(String text) {
    return text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
  }

  private static String words(int n) {
    return List.of("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten").get(n);
  }
}
