package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class ExtensionNamePropertyTest {

  private static final Pattern RULE = Pattern.compile("^@[a-z0-9_-]+/[a-z0-9_-]+(/[a-z0-9_-]+)*$");

  /** Random strings biased towards the alphabet of names, so that both outcomes are common. */
  @Provide
  Arbitrary<String> candidates() {
    Arbitrary<String> nearNames = Arbitraries.strings().withChars("@/az09_-A.\\ \n").ofMaxLength(24);
    Arbitrary<String> shaped = Arbitraries.strings().withChars("az09_-").ofMinLength(0).ofMaxLength(6).list()
        .ofMinSize(1).ofMaxSize(4).map(parts -> "@" + String.join("/", parts));
    return Arbitraries.oneOf(nearNames, shaped, Arbitraries.strings().ofMaxLength(30));
  }

  @Property(tries = 1000)
  void accepted_iffTheRuleMatches(@ForAll("candidates") String text) {
    boolean expected = RULE.matcher(text).matches() && text.length() <= ExtensionName.MAX_LENGTH;

    assertThat(ExtensionName.isValid(text)).isEqualTo(expected);
    if (expected) {
      assertThat(ExtensionName.of(text).value()).isEqualTo(text);
    } else {
      assertThatThrownBy(() -> ExtensionName.of(text))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith("Cannot use extension name \"")
          .extracting(e -> ((InvalidInputException) e).code()).isEqualTo("invalid_name");
    }
  }
}
