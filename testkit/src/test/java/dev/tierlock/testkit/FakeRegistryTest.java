package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.install.ExtensionRegistry;
import dev.tierlock.install.InstallException;
import dev.tierlock.install.VersionConstraint;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link FakeRegistry}, both forms through the same cases, and the directory form read by the real directory registry. */
class FakeRegistryTest {

  private static final ExtensionName TOOL = ExtensionName.of("@acme/tool");

  @TempDir static Path shared;

  static Stream<Arguments> forms() {
    return Stream.of(
        Arguments.of("memory", (Function<Path, FakeRegistry>) dir -> FakeRegistry.create()),
        Arguments.of("directory", (Function<Path, FakeRegistry>) FakeRegistry::directory));
  }

  private static int registries;

  private static FakeRegistry registry(Function<Path, FakeRegistry> form) {
    return form.apply(shared.resolve("registry-" + registries++));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("forms")
  void publish_thenResolveAndOpen_servesTheBytesWithTheirChecksum(String form, Function<Path, FakeRegistry> make)
      throws IOException {
    FakeRegistry registry = registry(make);
    byte[] one = TestArchives.extension("@acme/tool", "1.0.0").build();
    byte[] two = TestArchives.extension("@acme/tool", "1.5.0").build();
    registry.publish("@acme/tool", "1.0.0", one);
    ExtensionRegistry.Release published = registry.publish("@acme/tool", "1.5.0", two);
    registry.publish("@acme/tool", "2.0.0", TestArchives.extension("@acme/tool", "2.0.0").build());

    ExtensionRegistry.Release release = registry.resolve(TOOL, VersionConstraint.of("^1"));

    assertThat(release).isEqualTo(published);
    assertThat(release.checksum()).contains(TestArchives.sha256(two));
    assertThat(read(registry, release)).isEqualTo(two);
    assertThat(registry.resolve(TOOL, VersionConstraint.LATEST).version()).isEqualTo("2.0.0");
    assertThat(registry.resolve(TOOL, VersionConstraint.LOCKED).version()).isEqualTo("2.0.0");
    assertThat(registry.resolve(TOOL, VersionConstraint.of("1.0.0")).version()).isEqualTo("1.0.0");
    assertThat(registry.resolveCalls()).isEqualTo(4);
    assertThat(registry.openCalls()).isEqualTo(1);
    assertThat(registry.unclosedStreams()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("forms")
  void publishWithoutChecksumOrTampered_statesNoneOrAWrongOne(String form, Function<Path, FakeRegistry> make)
      throws IOException {
    FakeRegistry registry = registry(make);
    byte[] archive = TestArchives.extension("@acme/tool", "1.0.0").build();

    assertThat(registry.publishWithoutChecksum("@acme/tool", "1.0.0", archive).checksum()).isEmpty();
    assertThat(registry.resolve(TOOL, VersionConstraint.of("1.0.0")).checksum()).isEmpty();

    ExtensionRegistry.Release tampered = registry.publishTampered("@acme/tool", "1.0.0", archive);
    assertThat(tampered.checksum()).isPresent().get().isNotEqualTo(TestArchives.sha256(archive));
    assertThat(registry.resolve(TOOL, VersionConstraint.of("1.0.0"))).isEqualTo(tampered);
    assertThat(read(registry, tampered)).isEqualTo(archive);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("forms")
  void offline_failsEveryCallUntilOnline_andCountsThem(String form, Function<Path, FakeRegistry> make)
      throws IOException {
    FakeRegistry registry = registry(make);
    ExtensionRegistry.Release release =
        registry.publish("@acme/tool", "1.0.0", TestArchives.extension("@acme/tool", "1.0.0").build());

    registry.offline();
    assertThatThrownBy(() -> registry.resolve(TOOL, VersionConstraint.LATEST))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE))
        .hasMessage("Cannot reach the extension registry for @acme/tool: the registry is offline"
            + " (FakeRegistry.offline)");
    assertThatThrownBy(() -> registry.open(release))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE))
        .hasMessage("Cannot reach the extension registry for @acme/tool: the registry is offline"
            + " (FakeRegistry.offline)");
    registry.online();

    assertThat(registry.resolve(TOOL, VersionConstraint.LATEST)).isEqualTo(release);
    assertThat(read(registry, release)).hasSizeGreaterThan(0);
    assertThat(registry.resolveCalls()).isEqualTo(2);
    assertThat(registry.openCalls()).isEqualTo(2);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("forms")
  void failNextOpen_failsOnlyTheNextOpen(String form, Function<Path, FakeRegistry> make) throws IOException {
    FakeRegistry registry = registry(make);
    ExtensionRegistry.Release release =
        registry.publish("@acme/tool", "1.0.0", TestArchives.extension("@acme/tool", "1.0.0").build());

    registry.failNextOpen();

    assertThatThrownBy(() -> registry.open(release))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE))
        .hasMessage("Cannot reach the extension registry for @acme/tool: the open of 1.0.0 failed"
            + " (FakeRegistry.failNextOpen)");
    assertThat(read(registry, release)).hasSizeGreaterThan(0);
    assertThat(registry.unclosedStreams()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("forms")
  void breakNextStream_throwsMidRead_thenStreamsAreWholeAgain(String form, Function<Path, FakeRegistry> make)
      throws IOException {
    FakeRegistry registry = registry(make);
    byte[] archive = TestArchives.extension("@acme/tool", "1.0.0").file("big", new byte[10_000]).build();
    ExtensionRegistry.Release release = registry.publish("@acme/tool", "1.0.0", archive);

    registry.breakNextStream(10);

    try (InputStream in = registry.open(release)) {
      assertThat(in.readNBytes(10)).hasSize(10);
      assertThatThrownBy(in::read)
          .isInstanceOf(IOException.class)
          .hasMessage("connection reset after 10 bytes (FakeRegistry.breakNextStream)");
      assertThat(registry.unclosedStreams()).as("open until closed").isEqualTo(1);
    }
    assertThat(registry.unclosedStreams()).isZero();
    assertThat(read(registry, release)).isEqualTo(archive);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("forms")
  void resolveAndOpen_unknownRelease_isNotFound(String form, Function<Path, FakeRegistry> make) {
    FakeRegistry registry = registry(make);
    registry.publish("@acme/tool", "1.0.0", TestArchives.extension("@acme/tool", "1.0.0").build());

    assertThatThrownBy(() -> registry.resolve(TOOL, VersionConstraint.of("^2")))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_NOT_FOUND))
        .hasMessageStartingWith("Cannot find @acme/tool@^2 in the ");
    assertThatThrownBy(() -> registry.resolve(ExtensionName.of("@acme/other"), VersionConstraint.LATEST))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_NOT_FOUND))
        .hasMessageStartingWith("Cannot find @acme/other@latest in the ");
    assertThatThrownBy(() -> registry.open(new ExtensionRegistry.Release(TOOL, "3.0.0", Optional.empty(), Optional.empty())))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_NOT_FOUND))
        .hasMessageStartingWith("Cannot find @acme/tool@3.0.0 in the ");
  }

  @Test
  void publish_versionThatIsNotPlain_isRefused() {
    FakeRegistry registry = FakeRegistry.create();

    for (String version : new String[] {"../1.0.0", "latest", "1.0/2", " "}) {
      assertThatThrownBy(() -> registry.publish("@acme/tool", version, new byte[0]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot publish @acme/tool@" + version + ": give a plain version such as 1.2.0 or 2.0.0-rc.1");
    }
  }

  @Test
  void directory_writesTheDirectoryRegistryLayout_readByTheRealRegistry() throws IOException {
    Path dir = shared.resolve("layout");
    FakeRegistry fake = FakeRegistry.directory(dir);
    byte[] archive = TestArchives.extension("@acme/tool/sub", "1.2.0").build();
    fake.publish("@acme/tool/sub", "1.2.0", archive);
    fake.publishWithoutChecksum("@acme/tool/sub", "1.3.0-rc.1", archive);

    assertThat(dir.resolve("@acme/tool/sub/1.2.0.tar.gz")).hasBinaryContent(archive);
    assertThat(dir.resolve("@acme/tool/sub/1.2.0.tar.gz.sha256")).hasContent(TestArchives.sha256(archive)
        + "  1.2.0.tar.gz");
    assertThat(dir.resolve("@acme/tool/sub/1.3.0-rc.1.tar.gz.sha256")).doesNotExist();

    ExtensionRegistry real = ExtensionRegistry.directory(dir);
    ExtensionName sub = ExtensionName.of("@acme/tool/sub");
    assertThat(real.resolve(sub, VersionConstraint.LATEST)).isEqualTo(fake.resolve(sub, VersionConstraint.LATEST));
    assertThat(real.resolve(sub, VersionConstraint.of("1.3.0-rc.1")).checksum()).isEmpty();
    try (InputStream in = real.open(real.resolve(sub, VersionConstraint.of("1.2.0")))) {
      assertThat(in.readAllBytes()).isEqualTo(archive);
    }
    assertThat(FakeRegistry.directory(dir).resolve(sub, VersionConstraint.LATEST).version())
        .as("a second fake over the directory serves what the first published").isEqualTo("1.2.0");
  }

  @Test
  void create_instancesShareNothing() {
    FakeRegistry one = FakeRegistry.create();
    FakeRegistry two = FakeRegistry.create();
    one.publish("@acme/tool", "1.0.0", new byte[] {1});
    one.offline();

    assertThatThrownBy(() -> two.resolve(TOOL, VersionConstraint.LATEST))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_NOT_FOUND));
    assertThat(one.resolveCalls()).isZero();
  }

  private static byte[] read(FakeRegistry registry, ExtensionRegistry.Release release) throws IOException {
    try (InputStream in = registry.open(release)) {
      return in.readAllBytes();
    }
  }
}
