package dev.tierlock.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON the command line needs of its own, on Jackson: {@link #parse} reads a local state
 * file (one value, duplicate members refused) into maps, lists, strings, numbers (as their text),
 * booleans and {@link #NULL} ({@link JsonReport} writes the {@code --json} output). Stateless.
 */
final class Json {

  /** JSON {@code null}, as {@link #parse} returns it. */
  static final Object NULL = new Object() {
    @Override
    public String toString() {
      return "null";
    }
  };

  private static final JsonFactory FACTORY = JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private Json() {}

  /** A number, kept as its literal text. */
  record Number(String text) {}

  /**
   * Parses one JSON text.
   *
   * @return a {@code Map<String, Object>} (members in file order), {@code List<Object>}, {@code
   *     String}, {@code Boolean}, a {@link Number}, or {@link #NULL}
   * @throws IllegalArgumentException if it is not valid JSON; the message says where
   */
  static Object parse(String text) {
    try (JsonParser parser = FACTORY.createParser(text)) {
      if (parser.nextToken() == null) {
        throw new IllegalArgumentException("Cannot parse JSON: the text is empty");
      }
      Object value = value(parser);
      if (parser.nextToken() != null) {
        throw new IllegalArgumentException("Cannot parse JSON: unexpected text after the value at "
            + parser.currentLocation().getCharOffset());
      }
      return value;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Cannot parse JSON: " + e.getOriginalMessage() + " at "
          + e.getLocation().getCharOffset(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot parse JSON: " + e.getMessage(), e);
    }
  }

  /**
   * Parses one JSON text from its bytes, which must be UTF-8.
   *
   * @return what {@link #parse(String)} returns
   * @throws CharacterCodingException if the bytes are not UTF-8
   * @throws IllegalArgumentException if it is not valid JSON; the message says where
   */
  static Object parse(byte[] utf8) throws CharacterCodingException {
    return parse(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(utf8)).toString());
  }

  private static Object value(JsonParser parser) throws IOException {
    JsonToken token = parser.currentToken();
    switch (token) {
      case START_OBJECT: {
        Map<String, Object> map = new LinkedHashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String name = parser.currentName();
          parser.nextToken();
          map.put(name, value(parser));
        }
        return map;
      }
      case START_ARRAY: {
        List<Object> list = new ArrayList<>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          list.add(value(parser));
        }
        return list;
      }
      case VALUE_STRING:
        return parser.getText();
      case VALUE_NUMBER_INT:
      case VALUE_NUMBER_FLOAT:
        return new Number(parser.getText());
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NULL:
        return NULL;
      default:
        throw new IllegalArgumentException("Cannot parse JSON: unexpected " + token);
    }
  }
}
