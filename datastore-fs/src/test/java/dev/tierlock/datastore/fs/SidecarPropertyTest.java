package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class SidecarPropertyTest {

  private static final FileIdentity CURRENT_FILE = new FileIdentity("ino:12", Instant.parse("2026-01-02T03:04:05.123456789Z"));
  private static final FileIdentity NEXT_FILE = new FileIdentity("ino:13", Instant.parse("2026-01-02T03:04:06.000000001Z"));

  @Property(tries = 100)
  void encode_thenParse_returnsTheMetadataOfEveryFile(@ForAll("metadata") ObjectMetadata current,
      @ForAll("metadata") ObjectMetadata next) {
    String currentDigest = Digests.sha256Hex("current".getBytes(StandardCharsets.UTF_8));
    String nextDigest = Digests.sha256Hex("next".getBytes(StandardCharsets.UTF_8));
    List<Sidecar.Entry> entries = List.of(new Sidecar.Entry(currentDigest, CURRENT_FILE, current),
        new Sidecar.Entry(nextDigest, NEXT_FILE, next));

    Sidecar parsed = Sidecar.parse(Sidecar.encode(ObjectKey.of("config/a b/@x"), entries));

    assertThat(parsed.metadataOf(currentDigest, CURRENT_FILE)).contains(current);
    assertThat(parsed.metadataOf(nextDigest, NEXT_FILE)).contains(next);
    assertThat(parsed.metadataOf(Digests.sha256Hex(new byte[0]), CURRENT_FILE)).isEmpty();
    assertThat(parsed.metadataOf(currentDigest, null)).as("no file keys: by digest").contains(current);
  }

  @Property(tries = 100)
  void metadataOf_anotherFileWithTheSameBytes_isEmpty(@ForAll("metadata") ObjectMetadata current,
      @ForAll("metadata") ObjectMetadata next) {
    String currentDigest = Digests.sha256Hex("current".getBytes(StandardCharsets.UTF_8));
    String nextDigest = Digests.sha256Hex("next".getBytes(StandardCharsets.UTF_8));
    Sidecar parsed = Sidecar.parse(Sidecar.encode(ObjectKey.of("k"), List.of(
        new Sidecar.Entry(currentDigest, CURRENT_FILE, current), new Sidecar.Entry(nextDigest, NEXT_FILE, next))));

    assertThat(parsed.metadataOf(currentDigest, NEXT_FILE)).as("the earlier bytes in the newer file").isEmpty();
    assertThat(parsed.metadataOf(currentDigest, new FileIdentity("ino:99", CURRENT_FILE.modified())))
        .as("another inode, same time").isEmpty();
    assertThat(parsed.metadataOf(currentDigest, new FileIdentity("ino:12", CURRENT_FILE.modified().plusNanos(1))))
        .as("same inode, rewritten in place").isEmpty();
  }

  @Property(tries = 100)
  void version_differsWhenTheMetadataDiffers(@ForAll("metadata") ObjectMetadata a, @ForAll("metadata") ObjectMetadata b) {
    String digest = Digests.sha256Hex("same bytes".getBytes(StandardCharsets.UTF_8));

    assertThat(Digests.version(digest, a).equals(Digests.version(digest, b))).isEqualTo(a.equals(b));
  }

  @Property(tries = 50)
  void parse_ofAnythingElse_knowsNothing(@ForAll byte[] junk) {
    Sidecar parsed = Sidecar.parse(junk);

    assertThat(parsed.metadataOf(Digests.sha256Hex(junk), CURRENT_FILE)).isEmpty();
    assertThat(parsed.metadataOf(Digests.sha256Hex(junk), null)).isEmpty();
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
