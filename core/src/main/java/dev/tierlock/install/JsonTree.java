package dev.tierlock.install;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads one JSON value into plain Java values, for the small local files Tierlock validates member
 * by member (install journals, the convergence state): what the reader then checks is a map, a
 * list, a string, a boolean, a {@link Long} or null. Stateless.
 */
final class JsonTree {

  private JsonTree() {}

  /**
   * Reads the value at the parser's current token: an object as a {@link LinkedHashMap} in member
   * order, an array as a list, a string, a boolean, an integer that fits a {@code long} as a {@link
   * Long}, null; any other number as its text (so a reader expecting an integer refuses it).
   *
   * @param parser a parser on the value's first token
   * @return the value
   * @throws IOException if the parser fails
   */
  static @Nullable Object read(JsonParser parser) throws IOException {
    JsonToken token = parser.currentToken();
    switch (token) {
      case START_OBJECT: {
        Map<String, @Nullable Object> map = new LinkedHashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String key = parser.currentName();
          parser.nextToken();
          map.put(key, read(parser));
        }
        return map;
      }
      case START_ARRAY: {
        List<@Nullable Object> list = new ArrayList<>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          list.add(read(parser));
        }
        return list;
      }
      case VALUE_STRING:
        return parser.getText();
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NULL:
        return null;
      case VALUE_NUMBER_INT:
        return parser.getNumberType() == JsonParser.NumberType.INT || parser.getNumberType() == JsonParser.NumberType.LONG
            ? parser.getLongValue() : parser.getText();
      default:
        return parser.getText();
    }
  }
}
