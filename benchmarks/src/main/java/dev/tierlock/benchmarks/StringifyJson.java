package dev.tierlock.benchmarks;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Jackson set up to read a lockfile as a tree and to write one as the original tool does, {@code
 * JSON.stringify(value, null, 2)} and a newline: two-space indent, {@code "name": value}, {@code
 * []} and {@code {}} when empty. What the baseline protocols edit with, and the codec's yardstick.
 * Thread-safe.
 */
final class StringifyJson {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();
  private static final ObjectWriter WRITER = MAPPER.writer(printer());

  private StringifyJson() {}

  /** Returns a new, empty object node. */
  static com.fasterxml.jackson.databind.node.ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** Parses {@code bytes} into a tree ({@code readTree}). */
  static JsonNode read(byte[] bytes) {
    try {
      return MAPPER.readTree(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot parse a lockfile with Jackson: " + e.getMessage(), e);
    }
  }

  /** Writes {@code node} as {@code JSON.stringify(node, null, 2)} and a newline. */
  static byte[] write(JsonNode node) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
      WRITER.writeValue(out, node);
      out.write('\n');
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write a lockfile with Jackson: " + e.getMessage(), e);
    }
  }

  private static DefaultPrettyPrinter printer() {
    DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
    Separators separators = Separators.createDefaultInstance()
        .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
        .withObjectEmptySeparator("")
        .withArrayEmptySeparator("");
    return new DefaultPrettyPrinter(separators).withObjectIndenter(indenter).withArrayIndenter(indenter);
  }
}
