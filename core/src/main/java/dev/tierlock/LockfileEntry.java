package dev.tierlock;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What the shared lockfile pins for one extension: {@code version} and {@code pulledAt} (required),
 * and the optional {@code files}, {@code include}, {@code checksum}, {@code filesChecksum}, {@code
 * serverUrl} and {@code channel}. Fields this version does not know are kept, in their order, as raw
 * JSON text, and written back, so an old client never drops a newer client's fields.
 *
 * <p>Empty optionals do not exist: an empty list or blank string is the same as an absent field and
 * is omitted when written. {@code files} is kept sorted. Two entries are equal when their canonical
 * JSON ({@link #canonicalJson()}, object members sorted by name) is equal: member order is not a
 * difference. Immutable and thread-safe; build with {@link #builder(String, String)}.
 *
 * <p><b>Validation.</b> The builder reads values as the command line reads them, with the same rules
 * and the same code: a version must be an exact version ({@code 1.2.3}, {@code 2026.02.26.1}) or a
 * constraint pin ({@code ^1.2}, {@code ~1}, {@code >=1.2 <2}, {@code 1.x}, {@code *}); a checksum
 * is a SHA-256 as 64 hex digits in any case, optionally prefixed {@code sha256:}, and is stored bare
 * and lowercase; {@code pulledAt} is not blank. A value that breaks its rule is an {@link
 * InvalidInputException} with code {@value InvalidInputException#INVALID_INPUT}, naming the field
 * and the rule: the input is at fault. A programming error is an {@link IllegalArgumentException}
 * (an unknown field named like a known one, or whose text is not one JSON value) or a {@link
 * NullPointerException} (a null argument). Entries parsed from a lockfile keep their fields as
 * stored, versions the rules above do not know included.
 */
public final class LockfileEntry {

  /** The names of the fields this version knows, in the order they are written. */
  public static final List<String> KNOWN_FIELDS =
      List.of("version", "pulledAt", "files", "include", "checksum", "filesChecksum", "serverUrl", "channel");

  /** The form of {@code checksum} and {@code filesChecksum}: a SHA-256 digest in lowercase hex. */
  public static final Pattern DIGEST = Pattern.compile("^[0-9a-f]{64}$");

  /** The characters of a version or constraint pin, as the original tool writes them. */
  private static final Pattern VERSION = Pattern.compile("[0-9A-Za-z.+\\-_~^<>=*|, ]{1,128}");

  private static final DateTimeFormatter ISO_MILLIS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final String version;
  private final String pulledAt;
  private final List<String> files;
  private final List<String> include;
  private final @Nullable String checksum;
  private final @Nullable String filesChecksum;
  private final @Nullable String serverUrl;
  private final @Nullable String channel;
  private final Map<String, JsonValue> unknown;
  /** The canonical JSON, computed on first use (a benign race: every thread computes the same string). */
  private @Nullable String canonical;

  private LockfileEntry(Builder b) {
    this.version = b.version;
    this.pulledAt = b.pulledAt;
    this.files = sorted(b.files);
    this.include = List.copyOf(b.include);
    this.checksum = b.checksum;
    this.filesChecksum = b.filesChecksum;
    this.serverUrl = b.serverUrl;
    this.channel = b.channel;
    this.unknown = b.unknown.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(b.unknown));
  }

  /** Returns {@code values} sorted, as an immutable list; {@code values} itself when it is one already. */
  private static List<String> sorted(List<String> values) {
    for (int i = 1; i < values.size(); i++) {
      if (values.get(i - 1).compareTo(values.get(i)) > 0) {
        List<String> copy = new ArrayList<>(values);
        Collections.sort(copy);
        return List.copyOf(copy);
      }
    }
    return List.copyOf(values);
  }

  /**
   * Starts an entry.
   *
   * @param version the version installed, or the constraint pinned (see Validation above)
   * @param pulledAt when it was written, ISO-8601 text, not blank
   * @return a builder holding these two fields
   * @throws InvalidInputException ({@value InvalidInputException#INVALID_INPUT}) if the version is
   *     not a version or pin, or {@code pulledAt} is blank
   */
  public static Builder builder(String version, String pulledAt) {
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(pulledAt, "pulledAt");
    return new Builder(checkedVersion(version), Builder.required("pulledAt", pulledAt));
  }

  /**
   * Starts an entry read from a lockfile: its version is kept as stored, whatever it is, as long as
   * it is not blank (the lockfile's bytes are the promise, not this version's idea of a version).
   *
   * @throws IllegalArgumentException if either is blank
   */
  static Builder parsed(String version, String pulledAt) {
    for (String[] field : new String[][] {{"version", version}, {"pulledAt", pulledAt}}) {
      if (field[1].isBlank()) {
        throw new IllegalArgumentException("Cannot build lockfile entry: " + field[0] + " is blank");
      }
    }
    return new Builder(version, pulledAt);
  }

  /**
   * Starts an entry written at {@code pulledAt}, formatted as JavaScript's {@code toISOString()}
   * does ({@code 2026-01-01T00:00:00.000Z}).
   *
   * @param version the version installed, or the constraint pinned (see Validation above)
   * @param pulledAt when it was written
   * @return a builder holding these two fields
   * @throws InvalidInputException ({@value InvalidInputException#INVALID_INPUT}) if the version is
   *     not a version or pin
   */
  public static Builder builder(String version, Instant pulledAt) {
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(pulledAt, "pulledAt");
    return new Builder(checkedVersion(version), ISO_MILLIS.format(pulledAt));
  }

  /** Returns {@code text} if it is a version or constraint pin by the rule of Validation above. */
  private static String checkedVersion(String text) {
    if (text.isBlank() || !text.strip().equals(text) || !VERSION.matcher(text).matches()
        || text.chars().noneMatch(c -> Character.isDigit(c) || c == '*' || c == 'x' || c == 'X')) {
      throw InvalidInputException.value("version", text, "give an exact version (1.2.3, 2026.02.26.1) or a"
          + " constraint pin (^1.2, ~1, >=1.2 <2, 1.x, *)");
    }
    return text;
  }

  /**
   * Reads a SHA-256 as the builder's checksum setters do: 64 hex digits in any case, optionally
   * prefixed {@code sha256:} (as {@code entries list} prints it), surrounding white space ignored.
   *
   * @param field the field or option the text is for, named in the failure
   * @param text the text given
   * @return the 64 lowercase hex digits
   * @throws InvalidInputException ({@value InvalidInputException#INVALID_INPUT}) if it is not a SHA-256
   */
  public static String sha256(String field, String text) {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(text, "text");
    String bare = text.strip();
    if (bare.regionMatches(true, 0, "sha256:", 0, 7)) {
      bare = bare.substring(7);
    }
    bare = bare.toLowerCase(java.util.Locale.ROOT);
    if (!Builder.isDigest(bare)) {
      throw InvalidInputException.value(field, text, "give a SHA-256 as 64 hex characters, optionally prefixed"
          + " sha256:");
    }
    return bare;
  }

  /** {@return a builder holding every field of this entry, to derive a changed copy} */
  public Builder toBuilder() {
    Builder b = new Builder(version, pulledAt).files(files).include(include);
    b.checksum = checksum;
    b.filesChecksum = filesChecksum;
    b.serverUrl = serverUrl;
    b.channel = channel;
    b.unknown.putAll(unknown);
    return b;
  }

  /** {@return the version installed, or the constraint pinned} */
  public String version() {
    return version;
  }

  /** {@return when the entry was written, as ISO-8601 text} */
  public String pulledAt() {
    return pulledAt;
  }

  /** {@return the files the install wrote, sorted; empty when absent} */
  public List<String> files() {
    return files;
  }

  /** {@return the include list; empty when absent} */
  public List<String> include() {
    return include;
  }

  /** {@return the SHA-256 of the archive, lowercase hex, if recorded} */
  public Optional<String> checksum() {
    return Optional.ofNullable(checksum);
  }

  /** {@return the digest of the extracted files, lowercase hex, if recorded} */
  public Optional<String> filesChecksum() {
    return Optional.ofNullable(filesChecksum);
  }

  /** {@return the registry the extension came from, if not the default} */
  public Optional<String> serverUrl() {
    return Optional.ofNullable(serverUrl);
  }

  /** {@return the release channel, if not the default ({@code stable})} */
  public Optional<String> channel() {
    return Optional.ofNullable(channel);
  }

  /**
   * {@return the fields this version does not know, in their order: name to the field's value as
   * compact JSON text (member order and number literals as read)}
   */
  public Map<String, String> unknownFields() {
    Map<String, String> out = new LinkedHashMap<>();
    unknown.forEach((name, value) -> out.put(name, value.toCompactString()));
    return Collections.unmodifiableMap(out);
  }

  /** Returns the fields this version does not know, in their order, as parsed values (unmodifiable). */
  Map<String, JsonValue> unknownValues() {
    return unknown;
  }

  /** {@return the entry as compact JSON with object members sorted by name: its identity} */
  public String canonicalJson() {
    String c = canonical;
    if (c == null) {
      c = toJson().toCanonicalString();
      canonical = c;
    }
    return c;
  }

  /** Returns the entry as a JSON object: known fields in {@link #KNOWN_FIELDS} order, then unknown ones. */
  JsonValue.Obj toJson() {
    Map<String, JsonValue> members = new LinkedHashMap<>();
    members.put("version", new JsonValue.Str(version));
    members.put("pulledAt", new JsonValue.Str(pulledAt));
    if (!files.isEmpty()) {
      members.put("files", strings(files));
    }
    if (!include.isEmpty()) {
      members.put("include", strings(include));
    }
    putIfPresent(members, "checksum", checksum);
    putIfPresent(members, "filesChecksum", filesChecksum);
    putIfPresent(members, "serverUrl", serverUrl);
    putIfPresent(members, "channel", channel);
    members.putAll(unknown);
    return new JsonValue.Obj(members);
  }

  private static JsonValue.Arr strings(List<String> values) {
    return new JsonValue.Arr(values.stream().map(v -> (JsonValue) new JsonValue.Str(v)).toList());
  }

  private static void putIfPresent(Map<String, JsonValue> members, String name, @Nullable String value) {
    if (value != null) {
      members.put(name, new JsonValue.Str(value));
    }
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof LockfileEntry other && other.canonicalJson().equals(canonicalJson());
  }

  @Override
  public int hashCode() {
    return canonicalJson().hashCode();
  }

  @Override
  public String toString() {
    return canonicalJson();
  }

  /**
   * Collects the fields of a {@link LockfileEntry}. Not thread-safe. Every setter validates at once
   * and throws {@link IllegalArgumentException} naming the field.
   */
  public static final class Builder {

    private String version;
    private String pulledAt;
    private List<String> files = List.of();
    private List<String> include = List.of();
    private @Nullable String checksum;
    private @Nullable String filesChecksum;
    private @Nullable String serverUrl;
    private @Nullable String channel;
    private final Map<String, JsonValue> unknown = new LinkedHashMap<>();

    private Builder(String version, String pulledAt) {
      this.version = version;
      this.pulledAt = pulledAt;
    }

    /**
     * Sets the version (an exact version or a constraint pin).
     *
     * @param value the version (see Validation in {@link LockfileEntry})
     * @return this builder
     * @throws InvalidInputException ({@value InvalidInputException#INVALID_INPUT}) if it is not a
     *     version or pin
     */
    public Builder version(String value) {
      this.version = checkedVersion(value);
      return this;
    }

    /**
     * Sets when the extension was pulled, ISO-8601, kept verbatim.
     *
     * @param value the time, ISO-8601 text, not blank
     * @return this builder
     * @throws InvalidInputException ({@value InvalidInputException#INVALID_INPUT}) if it is blank
     */
    public Builder pulledAt(String value) {
      this.pulledAt = required("pulledAt", value);
      return this;
    }

    /**
     * Sets when the extension was pulled, formatted as {@link LockfileEntry#builder(String, Instant)} does.
     *
     * @param value the time
     * @return this builder
     */
    public Builder pulledAt(Instant value) {
      this.pulledAt = ISO_MILLIS.format(value);
      return this;
    }

    private static String required(String field, String value) {
      if (value.isBlank()) {
        throw InvalidInputException.value(field, value, "it is blank");
      }
      return value;
    }

    /**
     * Sets the files the install wrote (sorted when built); empty means absent.
     *
     * @param value the files' paths
     * @return this builder
     */
    public Builder files(Collection<String> value) {
      this.files = List.copyOf(value);
      return this;
    }

    /**
     * Sets the include list; empty means absent.
     *
     * @param value the include list
     * @return this builder
     */
    public Builder include(Collection<String> value) {
      this.include = List.copyOf(value);
      return this;
    }

    /**
     * Sets the archive's SHA-256, stored as 64 lowercase hex digits.
     *
     * @param value the SHA-256: 64 hex digits in any case, optionally prefixed {@code sha256:}
     * @return this builder
     * @throws InvalidInputException ({@value InvalidInputException#INVALID_INPUT}) if it is not a SHA-256
     */
    public Builder checksum(String value) {
      this.checksum = sha256("checksum", value);
      return this;
    }

    /**
     * Sets the extracted files' digest, stored as 64 lowercase hex digits.
     *
     * @param value the SHA-256: 64 hex digits in any case, optionally prefixed {@code sha256:}
     * @return this builder
     * @throws InvalidInputException ({@value InvalidInputException#INVALID_INPUT}) if it is not a SHA-256
     */
    public Builder filesChecksum(String value) {
      this.filesChecksum = sha256("filesChecksum", value);
      return this;
    }

    /** Sets {@code checksum} or {@code filesChecksum} as a lockfile stores it: exactly 64 lowercase hex digits. */
    Builder storedDigest(String field, String value) {
      if (!isDigest(value)) {
        throw new IllegalArgumentException("Cannot build lockfile entry: " + field
            + " must be exactly 64 lowercase hex digits (a SHA-256), got \"" + abbreviate(value) + "\"");
      }
      if (field.equals("checksum")) {
        this.checksum = value;
      } else {
        this.filesChecksum = value;
      }
      return this;
    }

    /**
     * Sets the registry the extension came from; blank means absent.
     *
     * @param value the registry's address, or blank for none
     * @return this builder
     */
    public Builder serverUrl(String value) {
      this.serverUrl = value.isBlank() ? null : value;
      return this;
    }

    /**
     * Sets the release channel; blank means absent.
     *
     * @param value the channel, or blank for none
     * @return this builder
     */
    public Builder channel(String value) {
      this.channel = value.isBlank() ? null : value;
      return this;
    }

    /**
     * Sets a field this version does not know, kept and written back as given; setting it again
     * keeps its position.
     *
     * @param name the field's name, not one of {@link #KNOWN_FIELDS}
     * @param json the field's value as exactly one JSON value
     * @return this builder
     * @throws IllegalArgumentException if the name is a known field or the text is not one JSON value
     */
    public Builder unknownField(String name, String json) {
      return unknownField(name, JsonValue.parse(json));
    }

    Builder unknownField(String name, JsonValue value) {
      if (KNOWN_FIELDS.contains(name)) {
        throw new IllegalArgumentException("Cannot build lockfile entry: \"" + name + "\" is a known field, not an unknown one");
      }
      unknown.put(name, value);
      return this;
    }

    /**
     * Removes a field this version does not know, if set.
     *
     * @param name the field's name
     * @return this builder
     */
    public Builder withoutUnknownField(String name) {
      unknown.remove(name);
      return this;
    }

    /**
     * Builds the entry.
     *
     * @return the entry
     */
    public LockfileEntry build() {
      return new LockfileEntry(this);
    }

    /** Returns whether {@code value} matches {@link #DIGEST}, without the cost of a regex match. */
    private static boolean isDigest(String value) {
      if (value.length() != 64) {
        return false;
      }
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
          return false;
        }
      }
      return true;
    }

    private static String abbreviate(String value) {
      return value.length() <= 80 ? value : value.substring(0, 77) + "...";
    }
  }
}
