package dev.tierlock.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The global settings of one command line, each from the first place that sets it: its flag, then
 * its environment variable ({@code TIERLOCK_DATASTORE}, {@code TIERLOCK_CHECKOUT}, {@code
 * TIERLOCK_NAMESPACE}, {@code TIERLOCK_TIMEOUT}), then the checkout's {@code .tierlock.toml}, then
 * the user's {@code ${XDG_CONFIG_HOME:-~/.config}/tierlock/config.toml}, then the default. A file
 * holds {@code key = "value"} lines (a TOML subset: basic strings, {@code #} comments) with the
 * keys {@code datastore}, {@code namespace}, {@code timeout} and, in the user's file only, {@code
 * checkout}; a relative directory in a file is relative to that file's directory. A file that
 * breaks these rules is refused naming the file and the line. Immutable once read.
 */
final class Settings {

  /** The settings, in the order {@code tierlock doctor} prints them. */
  static final List<String> KEYS = List.of("datastore", "checkout", "namespace", "timeout");

  /** The checkout's own file. */
  static final String CHECKOUT_FILE = ".tierlock.toml";

  /**
   * One setting as resolved.
   *
   * @param key the setting
   * @param value its value, or empty for the default
   * @param source where it came from: {@code --key}, an environment variable, a file's path, or
   *     {@code default}
   * @param base the directory a relative path in the value is relative to
   */
  record Value(String key, Optional<String> value, String source, Path base) {}

  private final Map<String, Value> values;

  private Settings(Map<String, Value> values) {
    this.values = values;
  }

  /**
   * Resolves every setting.
   *
   * @param flags the values given as flags (a key absent or null when not given)
   * @param environment the environment variables
   * @param workingDirectory the directory relative flags and variables are relative to
   * @throws IllegalArgumentException if a configuration file breaks its rules
   */
  static Settings resolve(Map<String, @Nullable String> flags, Map<String, String> environment, Path workingDirectory) {
    Path cwd = workingDirectory.toAbsolutePath().normalize();
    Map<String, Value> resolved = new LinkedHashMap<>();
    Optional<Path> userFile = userFile(environment);
    Map<String, String> user = userFile.map(file -> read(file, true)).orElse(Map.of());
    // the checkout first: its own file is read from it
    Value checkout = pick("checkout", flags, environment, cwd, Map.of(), null, user, userFile);
    resolved.put("checkout", checkout);
    Path checkoutDir = checkout.value().map(v -> checkout.base().resolve(v).normalize()).orElse(cwd);
    Path checkoutFile = checkoutDir.resolve(CHECKOUT_FILE);
    Map<String, String> local = read(checkoutFile, false);
    for (String key : List.of("datastore", "namespace", "timeout")) {
      resolved.put(key, pick(key, flags, environment, cwd, local, checkoutFile, user, userFile));
    }
    return new Settings(resolved);
  }

  private static Value pick(String key, Map<String, @Nullable String> flags, Map<String, String> environment, Path cwd,
      Map<String, String> local, @Nullable Path localFile, Map<String, String> user, Optional<Path> userFile) {
    String flag = flags.get(key);
    if (flag != null) {
      return new Value(key, Optional.of(flag), "--" + key, cwd);
    }
    String variable = "TIERLOCK_" + key.toUpperCase(Locale.ROOT);
    String env = environment.get(variable);
    if (env != null && !env.isEmpty()) {
      return new Value(key, Optional.of(env), variable, cwd);
    }
    if (localFile != null && local.containsKey(key)) {
      return new Value(key, Optional.of(local.get(key)), localFile.toString(), localFile.getParent());
    }
    if (user.containsKey(key) && userFile.isPresent()) {
      return new Value(key, Optional.of(user.get(key)), userFile.get().toString(), userFile.get().getParent());
    }
    return new Value(key, Optional.empty(), "default", cwd);
  }

  /**
   * {@return the user's configuration file, {@code ${XDG_CONFIG_HOME:-$HOME/.config}/tierlock/config.toml};
   * none when the environment sets neither variable}
   */
  static Optional<Path> userFile(Map<String, String> environment) {
    String xdg = environment.get("XDG_CONFIG_HOME");
    String home = environment.get("HOME");
    Path base = xdg != null && !xdg.isEmpty() ? Path.of(xdg)
        : home != null && !home.isEmpty() ? Path.of(home).resolve(".config") : null;
    return Optional.ofNullable(base).map(b -> b.resolve("tierlock").resolve("config.toml").toAbsolutePath().normalize());
  }

  /** {@return the setting {@code key}} */
  Value get(String key) {
    Value value = values.get(key);
    if (value == null) {
      throw new IllegalArgumentException("No setting " + key);
    }
    return value;
  }

  /** {@return every setting, in the order of {@link #KEYS}} */
  List<Value> all() {
    List<Value> all = new ArrayList<>();
    KEYS.forEach(key -> all.add(get(key)));
    return all;
  }

  /**
   * Reads a configuration file: empty when there is none.
   *
   * @throws IllegalArgumentException naming the file and line if it breaks the rules
   */
  static Map<String, String> read(Path file, boolean user) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Map.of();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read configuration file " + file + ": " + e.getMessage(), e);
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int eq = line.indexOf('=');
      String where = "Cannot read configuration file " + file + " line " + (i + 1) + ": ";
      if (eq < 0) {
        throw new IllegalArgumentException(where + "give key = \"value\"");
      }
      String key = line.substring(0, eq).strip();
      boolean known = key.equals("datastore") || key.equals("namespace") || key.equals("timeout")
          || (user && key.equals("checkout"));
      if (!known) {
        throw new IllegalArgumentException(where + "unknown key \"" + key + "\" (known: datastore, namespace, timeout"
            + (user ? ", checkout" : "; checkout only in the user's file") + ")");
      }
      if (values.containsKey(key)) {
        throw new IllegalArgumentException(where + "\"" + key + "\" is set twice");
      }
      values.put(key, string(line.substring(eq + 1).strip(), where));
    }
    return values;
  }

  /** Reads a TOML basic string, with an optional comment after it. */
  private static String string(String text, String where) {
    if (!text.startsWith("\"")) {
      throw new IllegalArgumentException(where + "a value is a string in double quotes, like \"30s\"");
    }
    StringBuilder out = new StringBuilder();
    for (int i = 1; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\' && i + 1 < text.length()) {
        char next = text.charAt(++i);
        switch (next) {
          case '"', '\\' -> out.append(next);
          case 't' -> out.append('\t');
          default -> throw new IllegalArgumentException(where + "unknown escape \\" + next);
        }
      } else if (c == '"') {
        String rest = text.substring(i + 1).strip();
        if (!rest.isEmpty() && !rest.startsWith("#")) {
          throw new IllegalArgumentException(where + "text after the value");
        }
        return out.toString();
      } else {
        out.append(c);
      }
    }
    throw new IllegalArgumentException(where + "the string is not closed");
  }
}
