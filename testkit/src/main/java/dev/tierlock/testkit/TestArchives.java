package dev.tierlock.testkit;

import dev.tierlock.ExtensionName;
import dev.tierlock.install.ExtensionManifest;
import dev.tierlock.install.VersionConstraint;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.zip.GZIPOutputStream;

/**
 * Builds extension archives ({@code .tar.gz} bytes) for tests: a JSON manifest ({@code
 * manifest.json}, the format {@link ExtensionManifest#readJson} reads) and the files given.
 *
 * <pre>{@code
 * byte[] archive = TestArchives.extension("@acme/tool", "1.2.0")
 *     .dependency("@acme/base", "^1")
 *     .file("bin/run.sh", "echo hi")
 *     .build();
 * registry.publish("@acme/tool", "1.2.0", archive);
 * }</pre>
 *
 * <p>The archive is plain ustar (regular files, mode 0644, time 0, the directories implied), so the
 * same input always gives the same bytes and the same {@link #sha256}. Paths are relative and
 * {@code /}-separated, at most 255 bytes of ASCII; use the archive tests' own writers for hostile
 * entries.
 */
public final class TestArchives {

  private static final int BLOCK = 512;

  private TestArchives() {}

  /**
   * Starts an archive whose manifest names {@code name} at {@code version}.
   *
   * @param name a scoped extension name, such as {@code @acme/tool}
   * @param version the manifest's version, not blank
   * @return the builder
   * @throws dev.tierlock.InvalidInputException ({@code invalid_name}) if {@code name} is not a scoped extension name
   * @throws IllegalArgumentException if {@code version} is blank
   */
  public static Builder extension(String name, String version) {
    ExtensionName.of(name);
    if (version.isBlank()) {
      throw new IllegalArgumentException("Cannot build an archive of " + name + ": the version is blank");
    }
    return new Builder(name, version);
  }

  /**
   * Returns the SHA-256 of {@code bytes}: 64 lowercase hex digits, the form checksums take everywhere.
   *
   * @param bytes what to hash
   * @return the digest
   */
  public static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot hash: this JVM has no SHA-256", e);
    }
  }

  /** An archive being described; {@link #build} gives its bytes. Not thread-safe. */
  public static final class Builder {
    private final String name;
    private final String version;
    private final Map<String, String> dependencies = new LinkedHashMap<>();
    private final Map<String, byte[]> files = new LinkedHashMap<>();
    private boolean manifest = true;

    private Builder(String name, String version) {
      this.name = name;
      this.version = version;
    }

    /**
     * Adds a dependency to the manifest.
     *
     * @param dependency a scoped extension name
     * @param constraint its version constraint, such as {@code ^1}
     * @return this builder
     * @throws dev.tierlock.InvalidInputException ({@code invalid_name}) if {@code dependency} is not a scoped name
     * @throws IllegalArgumentException if {@code constraint} is not a version constraint
     */
    public Builder dependency(String dependency, String constraint) {
      ExtensionName.of(dependency);
      dependencies.put(dependency, VersionConstraint.of(constraint).text());
      return this;
    }

    /**
     * Adds a file with {@code text}, UTF-8 (a later call for the same path replaces it).
     *
     * @param path a relative {@code /}-separated path, such as {@code bin/run.sh}
     * @param text its content
     * @return this builder
     * @throws IllegalArgumentException if the path is not relative, holds {@code .} or {@code ..}
     *     parts, is not ASCII or is longer than 255 bytes
     */
    public Builder file(String path, String text) {
      return file(path, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Adds a file with {@code bytes} (copied; a later call for the same path replaces it).
     *
     * @param path a relative {@code /}-separated path, such as {@code lib/tool.jar}
     * @param bytes its content
     * @return this builder
     * @throws IllegalArgumentException as {@link #file(String, String)} does
     */
    public Builder file(String path, byte[] bytes) {
      files.put(checkPath(path), bytes.clone());
      return this;
    }

    /**
     * Leaves the manifest out, for tests of an archive that has none; a {@link #file} named {@code
     * manifest.json} is still written as given.
     *
     * @return this builder
     */
    public Builder withoutManifest() {
      manifest = false;
      return this;
    }

    /**
     * Returns the archive's bytes: the manifest first (unless left out), then the files in the order
     * added.
     *
     * @return a {@code .tar.gz}
     */
    public byte[] build() {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
        if (manifest && !files.containsKey("manifest.json")) {
          entry(gzip, "manifest.json", manifestJson().getBytes(StandardCharsets.UTF_8));
        }
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
          entry(gzip, file.getKey(), file.getValue());
        }
        gzip.write(new byte[2 * BLOCK]);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return out.toByteArray();
    }

    private String manifestJson() {
      StringBuilder json = new StringBuilder("{\"name\": ").append(quote(name)).append(", \"version\": ")
          .append(quote(version));
      if (!dependencies.isEmpty()) {
        json.append(", \"dependencies\": {");
        String separator = "";
        for (Map.Entry<String, String> dependency : dependencies.entrySet()) {
          json.append(separator).append(quote(dependency.getKey())).append(": ").append(quote(dependency.getValue()));
          separator = ", ";
        }
        json.append('}');
      }
      return json.append("}\n").toString();
    }
  }

  private static String checkPath(String path) {
    Objects.requireNonNull(path, "path");
    boolean ascii = path.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '\\');
    if (path.isEmpty() || path.startsWith("/") || path.endsWith("/") || !ascii || path.length() > 255
        || Arrays.stream(path.split("/", -1)).anyMatch(p -> p.isEmpty() || p.equals(".") || p.equals(".."))) {
      throw new IllegalArgumentException("Cannot add file \"" + path + "\" to a test archive: give a relative path of"
          + " printable ASCII without . or .. parts, at most 255 bytes");
    }
    return path;
  }

  private static void entry(GZIPOutputStream out, String path, byte[] data) throws IOException {
    byte[] header = new byte[BLOCK];
    String name = path;
    String prefix = "";
    if (path.length() > 100) {
      int cut = path.lastIndexOf('/', 155);
      if (cut <= 0 || path.length() - cut - 1 > 100) {
        throw new IllegalArgumentException("Cannot add file \"" + path + "\" to a test archive: it does not split into"
            + " a ustar prefix and name");
      }
      prefix = path.substring(0, cut);
      name = path.substring(cut + 1);
    }
    put(header, 0, name);
    octal(header, 100, 8, 0644);
    octal(header, 108, 8, 0);
    octal(header, 116, 8, 0);
    octal(header, 124, 12, data.length);
    octal(header, 136, 12, 0);
    header[156] = '0';
    put(header, 257, "ustar\u000000");
    put(header, 345, prefix);
    Arrays.fill(header, 148, 156, (byte) ' ');
    int sum = 0;
    for (byte b : header) {
      sum += b & 0xff;
    }
    octal(header, 148, 7, sum);
    out.write(header);
    out.write(data);
    out.write(new byte[(BLOCK - data.length % BLOCK) % BLOCK]);
  }

  private static void put(byte[] header, int offset, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(bytes, 0, header, offset, bytes.length);
  }

  private static void octal(byte[] header, int offset, int length, long value) {
    put(header, offset, String.format("%0" + (length - 1) + "o", value));
    header[offset + length - 1] = 0;
  }

  private static String quote(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
