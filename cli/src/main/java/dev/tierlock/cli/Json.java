package dev.tierlock.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON the command line needs of its own: {@link #parse} reads a local state file
 * (strict RFC 8259: one value, no trailing commas or comments) into maps, lists, strings, numbers
 * (as their text), booleans and {@link #NULL}, and {@link #quote} writes a string literal for
 * {@code --json} output. Stateless.
 */
final class Json {

  /** JSON {@code null}, as {@link #parse} returns it. */
  static final Object NULL = new Object() {
    @Override
    public String toString() {
      return "null";
    }
  };

  private static final int MAX_DEPTH = 512;

  private final String text;
  private int at;

  private Json(String text) {
    this.text = text;
  }

  /**
   * Parses one JSON text.
   *
   * @return a {@code Map<String, Object>} (members in file order), {@code List<Object>}, {@code
   *     String}, {@code Boolean}, a {@link Number} text as {@link Json.Number}, or {@link #NULL}
   * @throws IllegalArgumentException if it is not valid JSON; the message gives the offset
   */
  static Object parse(String text) {
    Json json = new Json(text);
    json.skipWhitespace();
    Object value = json.value(0);
    json.skipWhitespace();
    if (json.at != text.length()) {
      throw json.error("unexpected text after the value");
    }
    return value;
  }

  /** A number, kept as its literal text. */
  record Number(String text) {}

  /** Returns {@code value} as a JSON string literal. */
  static String quote(String value) {
    StringBuilder out = new StringBuilder(value.length() + 2).append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  private Object value(int depth) {
    if (depth > MAX_DEPTH) {
      throw error("nested deeper than " + MAX_DEPTH);
    }
    if (at >= text.length()) {
      throw error("unexpected end of text");
    }
    char c = text.charAt(at);
    return switch (c) {
      case '{' -> object(depth);
      case '[' -> array(depth);
      case '"' -> string();
      case 't' -> literal("true", Boolean.TRUE);
      case 'f' -> literal("false", Boolean.FALSE);
      case 'n' -> literal("null", NULL);
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          yield number();
        }
        throw error("unexpected character '" + c + "'");
      }
    };
  }

  private Map<String, Object> object(int depth) {
    at++;
    Map<String, Object> members = new LinkedHashMap<>();
    skipWhitespace();
    if (peek() == '}') {
      at++;
      return members;
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"') {
        throw error("expected a member name");
      }
      String name = string();
      skipWhitespace();
      expect(':');
      skipWhitespace();
      members.put(name, value(depth + 1));
      skipWhitespace();
      char c = peek();
      at++;
      if (c == '}') {
        return members;
      }
      if (c != ',') {
        at--;
        throw error("expected ',' or '}'");
      }
    }
  }

  private List<Object> array(int depth) {
    at++;
    List<Object> items = new ArrayList<>();
    skipWhitespace();
    if (peek() == ']') {
      at++;
      return items;
    }
    while (true) {
      skipWhitespace();
      items.add(value(depth + 1));
      skipWhitespace();
      char c = peek();
      at++;
      if (c == ']') {
        return items;
      }
      if (c != ',') {
        at--;
        throw error("expected ',' or ']'");
      }
    }
  }

  private String string() {
    at++;
    StringBuilder out = new StringBuilder();
    while (true) {
      if (at >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(at++);
      if (c == '"') {
        return out.toString();
      }
      if (c < 0x20) {
        at--;
        throw error("control character in a string");
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (at >= text.length()) {
        throw error("unterminated escape");
      }
      char e = text.charAt(at++);
      switch (e) {
        case '"' -> out.append('"');
        case '\\' -> out.append('\\');
        case '/' -> out.append('/');
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          if (at + 4 > text.length()) {
            throw error("short \\u escape");
          }
          try {
            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          } catch (NumberFormatException ex) {
            throw error("bad \\u escape");
          }
          at += 4;
        }
        default -> {
          at--;
          throw error("bad escape '\\" + e + "'");
        }
      }
    }
  }

  private Number number() {
    int start = at;
    if (peek() == '-') {
      at++;
    }
    if (peek() == '0') {
      at++;
    } else if (isDigit(peek())) {
      while (isDigit(peek())) {
        at++;
      }
    } else {
      throw error("expected a digit");
    }
    if (peek() == '.') {
      at++;
      if (!isDigit(peek())) {
        throw error("expected a digit after '.'");
      }
      while (isDigit(peek())) {
        at++;
      }
    }
    if (peek() == 'e' || peek() == 'E') {
      at++;
      if (peek() == '+' || peek() == '-') {
        at++;
      }
      if (!isDigit(peek())) {
        throw error("expected a digit in the exponent");
      }
      while (isDigit(peek())) {
        at++;
      }
    }
    return new Number(text.substring(start, at));
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, at)) {
      throw error("unexpected character '" + text.charAt(at) + "'");
    }
    at += word.length();
    return value;
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    at++;
  }

  private char peek() {
    return at < text.length() ? text.charAt(at) : '\0';
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private void skipWhitespace() {
    while (at < text.length()) {
      char c = text.charAt(at);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      at++;
    }
  }

  private IllegalArgumentException error(String what) {
    int line = 1;
    int column = 1;
    for (int i = 0; i < Math.min(at, text.length()); i++) {
      if (text.charAt(i) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return new IllegalArgumentException("not valid JSON: " + what + " at line " + line + ", column " + column);
  }
}
