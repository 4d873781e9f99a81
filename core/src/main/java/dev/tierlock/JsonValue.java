package dev.tierlock;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A parsed JSON value that keeps what a lockfile round trip needs: object member order and the
 * literal text of numbers. Writes itself the way {@code JSON.stringify(x, null, 2)} does, compactly,
 * or canonically (object members sorted by name, for comparisons where key order is not a change).
 * Immutable.
 */
sealed interface JsonValue {

  /** The parser factory every Tierlock JSON read uses: strict JSON, duplicate names rejected. */
  JsonFactory FACTORY = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  /**
   * An object, members in document order.
   *
   * @param members the members
   */
  record Obj(Map<String, JsonValue> members) implements JsonValue {
    public Obj {
      members = Collections.unmodifiableMap(new LinkedHashMap<>(members));
    }
  }

  /**
   * An array.
   *
   * @param items the items
   */
  record Arr(List<JsonValue> items) implements JsonValue {
    public Arr {
      items = List.copyOf(items);
    }
  }

  /**
   * A string.
   *
   * @param value the decoded text
   */
  record Str(String value) implements JsonValue {}

  /**
   * A number, kept as its literal text so that writing it back changes nothing.
   *
   * @param literal the literal as it appeared in the document
   */
  record Num(String literal) implements JsonValue {}

  /** {@code true}, {@code false} or {@code null}. */
  enum Literal implements JsonValue {
    TRUE("true"),
    FALSE("false"),
    NULL("null");

    private final String text;

    Literal(String text) {
      this.text = text;
    }
  }

  /**
   * Parses a text holding exactly one JSON value.
   *
   * @throws IllegalArgumentException if the text is not exactly one valid JSON value
   */
  static JsonValue parse(String text) {
    try (JsonParser parser = FACTORY.createParser(text)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new IllegalArgumentException("Cannot parse JSON value: the text is empty");
      }
      JsonValue value = read(parser);
      if (parser.nextToken() != null) {
        throw new IllegalArgumentException("Cannot parse JSON value: unexpected content after the value at column "
            + parser.currentTokenLocation().getColumnNr());
      }
      return value;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Cannot parse JSON value: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot parse JSON value: " + e.getMessage(), e);
    }
  }

  /**
   * Reads the value whose first token is the parser's current token, leaving the parser on its last
   * token.
   *
   * @throws IOException if the document is malformed
   */
  static JsonValue read(JsonParser parser) throws IOException {
    JsonToken token = parser.currentToken();
    if (token == null) {
      throw new IllegalStateException("Cannot read JSON value: the parser has no current token");
    }
    switch (token) {
      case START_OBJECT: {
        Map<String, JsonValue> members = new LinkedHashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String name = parser.currentName();
          parser.nextToken();
          members.put(name, read(parser));
        }
        return new Obj(members);
      }
      case START_ARRAY: {
        List<JsonValue> items = new ArrayList<>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          items.add(read(parser));
        }
        return new Arr(items);
      }
      case VALUE_STRING:
        return new Str(parser.getText());
      case VALUE_NUMBER_INT:
      case VALUE_NUMBER_FLOAT:
        return new Num(parser.getText());
      case VALUE_TRUE:
        return Literal.TRUE;
      case VALUE_FALSE:
        return Literal.FALSE;
      case VALUE_NULL:
        return Literal.NULL;
      default:
        throw new IllegalStateException("Cannot read JSON value: unexpected token " + token);
    }
  }

  /**
   * Writes this value as {@code JSON.stringify(value, null, 2)} does, nested at {@code depth} (the
   * indentation of the line the value starts on, in levels of two spaces).
   */
  default void writePretty(StringBuilder out, int depth) {
    writePretty(out, "  ".repeat(depth), "  ", "\n");
  }

  /**
   * Writes this value as {@code JSON.stringify(value, null, unit)} does, with {@code eol} for each
   * line break, nested under a line indented by {@code indent}: inner lines are indented by {@code
   * indent} plus one {@code unit} per level, and the closing bracket by {@code indent}.
   */
  default void writePretty(StringBuilder out, String indent, String unit, String eol) {
    if (this instanceof Obj obj) {
      if (obj.members().isEmpty()) {
        out.append("{}");
        return;
      }
      String inner = indent + unit;
      out.append('{').append(eol);
      int i = 0;
      for (Map.Entry<String, JsonValue> member : obj.members().entrySet()) {
        out.append(inner);
        quote(member.getKey(), out);
        out.append(": ");
        member.getValue().writePretty(out, inner, unit, eol);
        out.append(++i < obj.members().size() ? "," : "").append(eol);
      }
      out.append(indent).append('}');
    } else if (this instanceof Arr arr) {
      if (arr.items().isEmpty()) {
        out.append("[]");
        return;
      }
      String inner = indent + unit;
      out.append('[').append(eol);
      for (int i = 0; i < arr.items().size(); i++) {
        out.append(inner);
        arr.items().get(i).writePretty(out, inner, unit, eol);
        out.append(i + 1 < arr.items().size() ? "," : "").append(eol);
      }
      out.append(indent).append(']');
    } else {
      writeScalar(out);
    }
  }

  /** Returns this value as compact JSON, object members in document order. */
  default String toCompactString() {
    StringBuilder out = new StringBuilder();
    writeCompact(out, false);
    return out.toString();
  }

  /** Returns this value as compact JSON with every object's members sorted by name. */
  default String toCanonicalString() {
    StringBuilder out = new StringBuilder();
    writeCompact(out, true);
    return out.toString();
  }

  private void writeCompact(StringBuilder out, boolean sorted) {
    if (this instanceof Obj obj) {
      Map<String, JsonValue> members = sorted ? new TreeMap<>(obj.members()) : obj.members();
      out.append('{');
      boolean first = true;
      for (Map.Entry<String, JsonValue> member : members.entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        quote(member.getKey(), out);
        out.append(':');
        member.getValue().writeCompact(out, sorted);
      }
      out.append('}');
    } else if (this instanceof Arr arr) {
      out.append('[');
      for (int i = 0; i < arr.items().size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        arr.items().get(i).writeCompact(out, sorted);
      }
      out.append(']');
    } else {
      writeScalar(out);
    }
  }

  private void writeScalar(StringBuilder out) {
    if (this instanceof Str str) {
      quote(str.value(), out);
    } else if (this instanceof Num num) {
      out.append(num.literal());
    } else if (this instanceof Literal literal) {
      out.append(literal.text);
    }
  }

  /**
   * Appends {@code text} as a JSON string literal, escaped exactly as {@code JSON.stringify} does:
   * the short escapes, other control characters and lone surrogates as lowercase {@code \}{@code
   * uXXXX}, everything else verbatim.
   */
  static void quote(String text, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          boolean loneSurrogate = Character.isHighSurrogate(c)
              ? i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))
              : Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1)));
          if (c < 0x20 || loneSurrogate) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
