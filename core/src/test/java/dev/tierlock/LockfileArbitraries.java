package dev.tierlock;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Generators of names, entries, lockfiles and deltas for the property tests. */
final class LockfileArbitraries {

  private LockfileArbitraries() {}

  /** Names from a small pool, so that generated lockfiles and deltas overlap. */
  static Arbitrary<ExtensionName> names() {
    return Arbitraries.of("@s/a", "@s/b", "@s/c", "@s/d", "@t/a", "@t/a/b", "@x-y/z_1", "@0/9").map(ExtensionName::of);
  }

  static Arbitrary<LockfileEntry> entries() {
    Arbitrary<String> version = Arbitraries.of("1.0.0", "2026.02.26.1", "^1.2", ">=3");
    Arbitrary<String> pulledAt = Arbitraries.of("2026-01-01T00:00:00.000Z", "2026-02-02T10:00:00.000Z");
    Arbitrary<List<String>> files = Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(4).list().ofMaxSize(3);
    Arbitrary<String> digest = Arbitraries.strings().withChars("0123456789abcdef").ofLength(64).injectNull(0.5);
    Arbitrary<String> channel = Arbitraries.of("", "beta", "stable");
    Arbitrary<Map<String, Integer>> unknown =
        Arbitraries.maps(Arbitraries.of("p", "q", "r"), Arbitraries.integers().between(0, 3)).ofMaxSize(3).injectNull(0.5);
    return Combinators.combine(version, pulledAt, files, digest, channel, unknown).as((v, p, f, d, c, u) -> {
      LockfileEntry.Builder b = LockfileEntry.builder(v, p).files(f).channel(c);
      if (d != null) {
        b.checksum(d);
      }
      if (u != null) {
        StringBuilder json = new StringBuilder("{");
        u.forEach((k, n) -> json.append(json.length() > 1 ? "," : "").append('"').append(k).append("\":").append(n));
        b.unknownField("extra", json.append('}').toString());
      }
      return b.build();
    });
  }

  static Arbitrary<Lockfile> lockfiles() {
    return Arbitraries.maps(names(), entries()).ofMaxSize(6).map(Lockfile::of);
  }

  static Arbitrary<LockfileDelta> deltas() {
    return Combinators.combine(Arbitraries.maps(names(), entries()).ofMaxSize(4), names().set().ofMaxSize(4))
        .as((upserts, removals) -> {
          removals.removeAll(upserts.keySet());
          return LockfileDelta.of(upserts, removals);
        });
  }

  /** Returns the same lockfile with its entries, and each entry's unknown object members, reversed. */
  static Lockfile reordered(Lockfile lockfile) {
    List<Map.Entry<ExtensionName, LockfileEntry>> list = new ArrayList<>(lockfile.entries().entrySet());
    Collections.reverse(list);
    Map<ExtensionName, LockfileEntry> out = new LinkedHashMap<>();
    for (Map.Entry<ExtensionName, LockfileEntry> e : list) {
      LockfileEntry.Builder b = e.getValue().toBuilder();
      e.getValue().unknownFields().forEach((name, json) -> {
        JsonValue value = JsonValue.parse(json);
        if (value instanceof JsonValue.Obj obj) {
          List<Map.Entry<String, JsonValue>> members = new ArrayList<>(obj.members().entrySet());
          Collections.reverse(members);
          Map<String, JsonValue> reversed = new LinkedHashMap<>();
          members.forEach(m -> reversed.put(m.getKey(), m.getValue()));
          b.unknownField(name, new JsonValue.Obj(reversed));
        }
      });
      out.put(e.getKey(), b.build());
    }
    return Lockfile.of(out);
  }
}
