package dev.tierlock.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.TierPath;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

class ExtensionArchiveKeyPropertyTest {

  /** The rule, written independently of the implementation. */
  private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}");

  @Property(tries = 2000)
  void of_acceptsExactlyTheKeysThatMatchTheRule(@ForAll("names") String name, @ForAll("digests") String digest) {
    boolean valid = ExtensionName.isValid(name) && DIGEST.matcher(digest).matches();
    Statistics.label("valid").collect(valid);
    Statistics.label("valid").coverage(coverage -> {
      coverage.check(true).percentage(p -> p > 3);
      coverage.check(false).percentage(p -> p > 50);
    });

    if (valid) {
      ExtensionArchiveKey key = ExtensionArchiveKey.of(name, digest);
      assertThat(key.name().value()).isEqualTo(name);
      assertThat(key.sha256()).isEqualTo(digest);
      assertThat(ExtensionArchiveKey.isValid(name, digest)).isTrue();
    } else {
      assertThatThrownBy(() -> ExtensionArchiveKey.of(name, digest))
          .isInstanceOfSatisfying(ArchiveException.class,
              e -> assertThat(e.code()).isEqualTo(ArchiveException.INVALID_KEY))
          .hasMessageStartingWith("Cannot use archive key \"")
          .satisfies(e -> {
            ArchiveException invalid = (ArchiveException) e;
            assertThat(invalid.code()).isEqualTo("invalid_archive_key");
            assertThat(invalid.source()).isEqualTo(name + "@" + digest);
          });
      assertThat(ExtensionArchiveKey.isValid(name, digest)).isFalse();
    }
  }

  @Property(tries = 1000)
  void tierPath_ofAnyValidKey_isContainedAndParsesBack(@ForAll("validNames") String name,
      @ForAll("validDigests") String digest) {
    ExtensionArchiveKey key = ExtensionArchiveKey.of(name, digest);

    TierPath path = key.tierPath();

    assertThat(path.value()).isEqualTo("config/pulled-archives/" + name + "/" + digest + ".tar.gz");
    assertThat(path.value().split("/")).doesNotContain("..", ".", "");
    assertThat(ExtensionArchiveKey.fromTierPath(path)).contains(key);
  }

  @Provide
  Arbitrary<String> names() {
    Arbitrary<String> segment = Arbitraries.strings().withChars("abz09_-").ofMinLength(0).ofMaxLength(6);
    Arbitrary<String> near = Combinators.combine(Arbitraries.of("@", "", "@@", "/@"), segment,
        Arbitraries.of("/", "//", "/../", "\\", "/./", ""), segment, Arbitraries.of("", "/x", "/", "/A", "\n"))
        .as((a, b, c, d, e) -> a + b + c + d + e);
    Arbitrary<String> wild = Arbitraries.strings().all().ofMaxLength(24);
    Arbitrary<String> long_ = Arbitraries.integers().between(200, 230).map(n -> "@s/" + "n".repeat(n));
    return Arbitraries.oneOf(near, near, wild, long_, validNames());
  }

  @Provide
  Arbitrary<String> digests() {
    Arbitrary<String> hexish = Arbitraries.strings().withChars("0123456789abcdefABCDEFg \n").ofMinLength(62)
        .ofMaxLength(66);
    Arbitrary<String> wild = Arbitraries.strings().all().ofMaxLength(70);
    return Arbitraries.oneOf(hexish, wild, validDigests(), validDigests(), validDigests(),
        validDigests().map(d -> d + "\n"), validDigests().map(String::toUpperCase));
  }

  @Provide
  Arbitrary<String> validNames() {
    Arbitrary<String> segment = Arbitraries.strings().withChars("abcxyz0189_-").ofMinLength(1).ofMaxLength(8);
    return Combinators.combine(segment, segment.list().ofMinSize(1).ofMaxSize(4))
        .as((scope, rest) -> "@" + scope + "/" + String.join("/", rest));
  }

  @Provide
  Arbitrary<String> validDigests() {
    return Arbitraries.strings().withChars("0123456789abcdef").ofLength(64);
  }
}
