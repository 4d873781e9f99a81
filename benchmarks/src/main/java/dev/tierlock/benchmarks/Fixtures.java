package dev.tierlock.benchmarks;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Lockfiles and entries the benchmarks write: realistic entries, the same bytes every run. */
final class Fixtures {

  /** The instant every benchmark entry was pulled at. */
  static final Instant PULLED_AT = Instant.parse("2026-01-01T00:00:00Z");

  private Fixtures() {}

  /** Returns a lockfile of {@code size} entries with every field set, written as the original tool writes it. */
  static Lockfile lockfile(int size) {
    SplittableRandom random = new SplittableRandom(size);
    Map<ExtensionName, LockfileEntry> entries = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) {
      entries.put(ExtensionName.of("@scope" + (i % 50) + "/extension-" + i), fullEntry(i, random));
    }
    return Lockfile.of(entries);
  }

  /** Returns the plain entry a contention writer puts: a version, pulled at {@link #PULLED_AT}. */
  static LockfileEntry plainEntry(String version) {
    return LockfileEntry.builder(version, PULLED_AT).build();
  }

  private static LockfileEntry fullEntry(int i, SplittableRandom random) {
    return LockfileEntry.builder("1." + (i % 17) + "." + (i % 5), PULLED_AT.plusSeconds(i))
        .files(List.of("extension.json", "lib/index.js", "README.md"))
        .checksum(digest(random))
        .filesChecksum(digest(random))
        .serverUrl("https://registry.example.com")
        .channel(i % 3 == 0 ? "beta" : "stable")
        .build();
  }

  private static String digest(SplittableRandom random) {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
