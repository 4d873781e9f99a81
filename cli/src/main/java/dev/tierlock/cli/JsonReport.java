package dev.tierlock.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The one writer of every command's {@code --json} output: one JSON object per run, indented, whose
 * first members are {@code "schema"} ({@link #SCHEMA}, raised only when a member changes meaning or
 * goes away; a new member does not raise it) and {@code "command"} (the command's name, as typed
 * after {@code tierlock}). Values the text output spells in words are spelled the same way here
 * ({@link #words}): lowercase, {@code unverified}, {@code out of date}, {@code converged}; absent
 * values are {@code null}, never left out. docs/operator-guide.md documents each command's
 * members. Stateless.
 */
final class JsonReport {

  /** The version of the documents' schema, the first member of each. */
  static final int SCHEMA = 1;

  private static final JsonFactory FACTORY = JsonFactory.builder().disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
      .build();

  private JsonReport() {}

  /** What writes a document's members after {@code schema} and {@code command}. */
  @FunctionalInterface
  interface Body {
    /**
     * Writes the members.
     *
     * @throws IOException if the output fails
     */
    void write(JsonGenerator g) throws IOException;
  }

  /**
   * Prints one document for {@code command} on {@code out}, and a line break after it.
   *
   * @throws UncheckedIOException if the output fails
   */
  static void print(PrintWriter out, String command, Body body) {
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      g.setPrettyPrinter(new DefaultPrettyPrinter(Separators.createDefaultInstance()
          .withObjectFieldValueSpacing(Separators.Spacing.AFTER)));
      g.writeStartObject();
      g.writeNumberField("schema", SCHEMA);
      g.writeStringField("command", command);
      body.write(g);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the JSON output: " + e.getMessage(), e);
    }
    out.println();
    out.flush();
  }

  /** {@return {@code value} as the text output spells it: lowercase, words apart ({@code OUT_OF_DATE} is {@code out of date})} */
  static String words(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT).replace('_', ' ');
  }

  /** Writes {@code field} as {@code value}, or {@code null} when it is empty. */
  static void optional(JsonGenerator g, String field, Optional<?> value) throws IOException {
    if (value.isPresent()) {
      g.writeStringField(field, value.get().toString());
    } else {
      g.writeNullField(field);
    }
  }

  /** Writes {@code field} as an array of the strings of {@code values}. */
  static void strings(JsonGenerator g, String field, List<?> values) throws IOException {
    g.writeArrayFieldStart(field);
    for (Object value : values) {
      g.writeString(value.toString());
    }
    g.writeEndArray();
  }
}
