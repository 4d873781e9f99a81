package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class SidecarPropertyTest {

  @Property(tries = 100)
  void encode_thenParse_returnsTheMetadataOfEveryContent(@ForAll("metadata") ObjectMetadata current,
      @ForAll("metadata") ObjectMetadata next) {
    String currentDigest = Digests.sha256Hex("current".getBytes(StandardCharsets.UTF_8));
    String nextDigest = Digests.sha256Hex("next".getBytes(StandardCharsets.UTF_8));
    Map<String, ObjectMetadata> entries = new LinkedHashMap<>();
    entries.put(currentDigest, current);
    entries.put(nextDigest, next);

    Sidecar parsed = Sidecar.parse(Sidecar.encode(ObjectKey.of("config/a b/@x"), entries));

    assertThat(parsed.metadataOf(currentDigest)).contains(current);
    assertThat(parsed.metadataOf(nextDigest)).contains(next);
    assertThat(parsed.metadataOf(Digests.sha256Hex(new byte[0]))).isEmpty();
  }

  @Property(tries = 100)
  void version_differsWhenTheMetadataDiffers(@ForAll("metadata") ObjectMetadata a, @ForAll("metadata") ObjectMetadata b) {
    String digest = Digests.sha256Hex("same bytes".getBytes(StandardCharsets.UTF_8));

    assertThat(Digests.version(digest, a).equals(Digests.version(digest, b))).isEqualTo(a.equals(b));
  }

  @Property(tries = 50)
  void parse_ofAnythingElse_knowsNothing(@ForAll byte[] junk) {
    Sidecar parsed = Sidecar.parse(junk);

    assertThat(parsed.metadataOf(Digests.sha256Hex(junk))).isEmpty();
  }

  @Provide
  Arbitrary<ObjectMetadata> metadata() {
    Arbitrary<String> names = Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyz0123456789-").ofMinLength(1).ofMaxLength(64);
    Arbitrary<String> values = Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(256);
    return Combinators.combine(names, values).as(Map::entry).list().ofMaxSize(16)
        .map(list -> {
          Map<String, String> map = new LinkedHashMap<>();
          list.forEach(e -> map.putIfAbsent(e.getKey(), e.getValue()));
          return new ObjectMetadata(map);
        });
  }
}
