package dev.tierlock.datastore.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class S3DatastoreConfigPropertyTest {

  @Property(tries = 200)
  void prefix_normalisationIsIdempotentAndIgnoresOuterSlashes(@ForAll("segments") List<String> segments) {
    String joined = String.join("/", segments);
    String normalised = S3DatastoreConfig.of("my-bucket", joined).prefix();

    assertThat(normalised).isEqualTo(joined + "/");
    assertThat(S3DatastoreConfig.of("my-bucket", "/" + joined + "/").prefix()).isEqualTo(normalised);
    assertThat(S3DatastoreConfig.of("my-bucket", normalised).prefix()).isEqualTo(normalised);
  }

  @Provide
  Arbitrary<List<String>> segments() {
    return Arbitraries.strings().withChars("abcz09-_.@").ofMinLength(1).ofMaxLength(8)
        .filter(s -> !s.equals(".") && !s.equals(".."))
        .list().ofMinSize(1).ofMaxSize(5);
  }
}
