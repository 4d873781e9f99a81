package dev.tierlock;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.jspecify.annotations.Nullable;

/**
 * A lockfile entry as a generated document writes it: its fields in document order (known and
 * unknown mixed, {@code files} unsorted, optionals null, blank or absent). Gives the model entry
 * ({@link #toEntry()}) and the value {@code JSON.stringify} should see when Tierlock writes it
 * ({@link #written()}), both derived here without the code under test's parser or printer.
 */
final class GeneratedEntry {

  private static final List<String> VERSIONS = List.of("1.0.0", "^1.2", "2026.02.26.1", "é-1", "q\"v", "😀");
  private static final List<String> TIMES = List.of("2026-01-01T00:00:00.000Z", "t", "2026-02-02T10:00:00.000Z");
  private static final List<String> OPTIONAL_STRINGS = List.of("checksum", "filesChecksum", "serverUrl", "channel");

  private final List<Map.Entry<String, @Nullable Object>> fields;

  private GeneratedEntry(List<Map.Entry<String, @Nullable Object>> fields) {
    this.fields = fields;
  }

  static GeneratedEntry random(Random r) {
    List<Map.Entry<String, @Nullable Object>> fields = new ArrayList<>();
    fields.add(field("version", GeneratedLockfile.pick(VERSIONS, r)));
    fields.add(field("pulledAt", GeneratedLockfile.pick(TIMES, r)));
    for (String list : List.of("files", "include")) {
      int p = r.nextInt(10);
      if (p < 5) {
        List<Object> items = new ArrayList<>();
        for (int i = r.nextInt(5); i > 0; i--) {
          items.add(GeneratedLockfile.pick(GeneratedLockfile.strings(), r));
        }
        fields.add(field(list, items));
      } else if (p == 5) {
        fields.add(field(list, null));
      }
    }
    for (String name : OPTIONAL_STRINGS) {
      int p = r.nextInt(10);
      boolean digest = name.endsWith("hecksum");
      if (p < 3) {
        fields.add(field(name, digest ? HexFormat.of().formatHex(bytes(r)) : name.equals("channel") ? "beta" : "https://r.example"));
      } else if (p == 3) {
        fields.add(field(name, null));
      } else if (p == 4 && !digest) {
        fields.add(field(name, ""));
      }
    }
    List<String> unknown = new ArrayList<>(GeneratedLockfile.unknownNames());
    Collections.shuffle(unknown, r);
    for (int i = r.nextInt(4); i > 0; i--) {
      fields.add(field(unknown.get(i), GeneratedLockfile.randomValue(r, 0)));
    }
    Collections.shuffle(fields, r);
    return new GeneratedEntry(List.copyOf(fields));
  }

  private static byte[] bytes(Random r) {
    byte[] b = new byte[32];
    r.nextBytes(b);
    return b;
  }

  private static Map.Entry<String, @Nullable Object> field(String name, @Nullable Object value) {
    return new java.util.AbstractMap.SimpleImmutableEntry<>(name, value);
  }

  /** Returns the entry as the document writes it: a map in document order, null as a JSON null. */
  Map<String, Object> document() {
    Map<String, Object> out = new LinkedHashMap<>();
    fields.forEach(f -> out.put(f.getKey(), f.getValue() == null ? new GeneratedLockfile.Num("null") : f.getValue()));
    return out;
  }

  /** Returns the model entry, built from the fields' values. */
  @SuppressWarnings("unchecked")
  LockfileEntry toEntry() {
    // as a lockfile may hold it (parsed, then written back): versions the builder would refuse included
    LockfileEntry.Builder b = LockfileEntry.parsed((String) get("version"), (String) get("pulledAt"));
    for (Map.Entry<String, @Nullable Object> f : fields) {
      Object v = f.getValue();
      if (v == null) {
        continue;
      }
      switch (f.getKey()) {
        case "version", "pulledAt" -> { }
        case "files" -> b.files((List<String>) (List<?>) v);
        case "include" -> b.include((List<String>) (List<?>) v);
        case "checksum", "filesChecksum" -> b.storedDigest(f.getKey(), (String) v);
        case "serverUrl" -> b.serverUrl((String) v);
        case "channel" -> b.channel((String) v);
        default -> b.unknownField(f.getKey(), GeneratedLockfile.compact(v));
      }
    }
    return b.build();
  }

  /**
   * Returns the value Tierlock should write for this entry: known fields first in their order
   * ({@code files} sorted, empty lists and blank or null optionals left out), then unknown fields in
   * document order.
   */
  @SuppressWarnings("unchecked")
  Map<String, Object> written() {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String known : LockfileEntry.KNOWN_FIELDS) {
      Object v = get(known);
      if (v instanceof List<?> list && !list.isEmpty()) {
        List<String> items = new ArrayList<>((List<String>) list);
        if (known.equals("files")) {
          Collections.sort(items);
        }
        out.put(known, items);
      } else if (v instanceof String s && !s.isBlank()) {
        out.put(known, s);
      }
    }
    fields.stream().filter(f -> !LockfileEntry.KNOWN_FIELDS.contains(f.getKey()))
        .forEach(f -> out.put(f.getKey(), f.getValue()));
    return out;
  }

  private @Nullable Object get(String name) {
    for (Map.Entry<String, @Nullable Object> f : fields) {
      if (f.getKey().equals(name)) {
        return f.getValue();
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return GeneratedLockfile.compact(document());
  }
}
