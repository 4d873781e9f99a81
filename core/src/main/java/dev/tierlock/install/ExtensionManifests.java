package dev.tierlock.install;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.tierlock.ExtensionName;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads extension manifests in Tierlock's default format, a JSON object, as {@link
 * ExtensionManifest#readJson} documents it. Thread-safe.
 */
final class ExtensionManifests {

  /** The largest manifest read, in bytes: 1 MiB. */
  static final int MAX_BYTES = 1024 * 1024;

  /** What a message names as the extension before the manifest's name is read. */
  private static final String UNKNOWN = "(unknown extension)";

  private static final JsonFactory JSON = JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();

  private ExtensionManifests() {}

  /** Reads a JSON manifest file, as {@link ExtensionManifest#readJson} says. */
  static ExtensionManifest readJson(Path file) {
    byte[] bytes = read(file);
    Reading reading = new Reading(file);
    try (JsonParser parser = JSON.createParser(bytes)) {
      return reading.manifest(parser);
    } catch (JsonProcessingException e) {
      var at = e.getLocation();
      throw keeping(e, reading.refuse("is not valid JSON: " + e.getOriginalMessage()
          + (at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr())));
    } catch (IOException e) {
      throw keeping(e, reading.refuse("cannot be read: " + e.getMessage()));
    }
  }

  private static byte[] read(Path file) {
    if (!Files.isRegularFile(file)) {
      String what = Files.exists(file, LinkOption.NOFOLLOW_LINKS) ? "is not a regular file" : "does not exist";
      throw InstallException.manifestMismatch(UNKNOWN, "manifest " + file + " " + what, null);
    }
    try (InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      if (bytes.length > MAX_BYTES) {
        throw InstallException.manifestMismatch(UNKNOWN, "manifest " + file + " is larger than " + MAX_BYTES + " bytes", null);
      }
      return bytes;
    } catch (IOException e) {
      throw keeping(e, InstallException.manifestMismatch(UNKNOWN, "manifest " + file + " cannot be read: " + e, null));
    }
  }

  /** Keeps {@code cause} with {@code failure} (whose type takes no cause) as a suppressed exception. */
  private static InstallException keeping(Exception cause, InstallException failure) {
    failure.addSuppressed(cause);
    return failure;
  }

  /** One reading of one file: remembers the name once read, for the messages. */
  private static final class Reading {
    private final Path file;
    private @Nullable String name;

    Reading(Path file) {
      this.file = file;
    }

    ExtensionManifest manifest(JsonParser parser) throws IOException {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw refuse("is not a JSON object");
      }
      ExtensionName extension = null;
      String version = null;
      Map<ExtensionName, VersionConstraint> dependencies = Map.of();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        switch (field) {
          case "name" -> extension = name(parser, value);
          case "version" -> version = version(parser, value);
          case "dependencies" -> dependencies = dependencies(parser, value);
          default -> parser.skipChildren();
        }
      }
      if (parser.nextToken() != null) {
        throw refuse("holds more than one JSON value");
      }
      if (extension == null) {
        throw refuse("has no \"name\"");
      }
      if (version == null) {
        throw refuse("has no \"version\"");
      }
      return new ExtensionManifest(extension, version, dependencies);
    }

    private ExtensionName name(JsonParser parser, JsonToken value) throws IOException {
      String text = string(parser, value, "\"name\"");
      if (!ExtensionName.isValid(text)) {
        throw refuse("has \"name\" \"" + text + "\", which is not a scoped extension name such as @acme/tool");
      }
      name = text;
      return ExtensionName.of(text);
    }

    private String version(JsonParser parser, JsonToken value) throws IOException {
      String text = string(parser, value, "\"version\"");
      if (text.isBlank()) {
        throw refuse("has a blank \"version\"");
      }
      return text;
    }

    private Map<ExtensionName, VersionConstraint> dependencies(JsonParser parser, JsonToken value) throws IOException {
      if (value != JsonToken.START_OBJECT) {
        throw refuse("has \"dependencies\" of type " + type(value) + ", not an object");
      }
      Map<ExtensionName, VersionConstraint> out = new LinkedHashMap<>();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String dependency = parser.currentName();
        String what = "dependency \"" + dependency + "\"";
        if (!ExtensionName.isValid(dependency)) {
          throw refuse("has " + what + ", which is not a scoped extension name such as @acme/base");
        }
        String constraint = string(parser, parser.nextToken(), what);
        try {
          out.put(ExtensionName.of(dependency), VersionConstraint.of(constraint));
        } catch (IllegalArgumentException e) {
          throw keeping(e, refuse("has " + what + " with constraint \"" + constraint + "\", which is not a version"
              + " constraint"));
        }
      }
      return out;
    }

    private String string(JsonParser parser, JsonToken value, String what) throws IOException {
      if (value != JsonToken.VALUE_STRING) {
        throw refuse("has " + what + " of type " + type(value) + ", not a string");
      }
      return parser.getText();
    }

    InstallException refuse(String reason) {
      return InstallException.manifestMismatch(name == null ? UNKNOWN : name, "manifest " + file + " " + reason, null);
    }

    private static String type(@Nullable JsonToken token) {
      if (token == null) {
        return "nothing";
      }
      return switch (token) {
        case START_OBJECT -> "object";
        case START_ARRAY -> "array";
        case VALUE_STRING -> "string";
        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
        case VALUE_TRUE, VALUE_FALSE -> "boolean";
        case VALUE_NULL -> "null";
        default -> token.name();
      };
    }
  }
}
