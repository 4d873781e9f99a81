package dev.tierlock.install;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Builds extension archives for core's install tests (the testkit's {@code TestArchives} is the
 * public twin; core's tests cannot depend on the testkit). Not thread-safe.
 */
final class TestTarGz {

  private final Map<String, byte[]> files = new LinkedHashMap<>();
  private final Map<String, String> dependencies = new LinkedHashMap<>();
  private final String name;
  private final String version;
  private boolean manifest = true;

  private TestTarGz(String name, String version) {
    this.name = name;
    this.version = version;
  }

  /** Starts an archive whose {@code manifest.json} names {@code name} at {@code version}. */
  static TestTarGz extension(String name, String version) {
    return new TestTarGz(name, version);
  }

  TestTarGz dependency(String dependency, String constraint) {
    dependencies.put(dependency, constraint);
    return this;
  }

  TestTarGz file(String path, String text) {
    files.put(path, text.getBytes(StandardCharsets.UTF_8));
    return this;
  }

  TestTarGz file(String path, byte[] bytes) {
    files.put(path, bytes.clone());
    return this;
  }

  TestTarGz withoutManifest() {
    manifest = false;
    return this;
  }

  byte[] build() {
    Map<String, byte[]> all = new LinkedHashMap<>();
    if (manifest) {
      StringBuilder json = new StringBuilder("{\"name\": \"" + name + "\", \"version\": \"" + version + "\"");
      if (!dependencies.isEmpty()) {
        json.append(", \"dependencies\": {");
        String sep = "";
        for (Map.Entry<String, String> d : dependencies.entrySet()) {
          json.append(sep).append('"').append(d.getKey()).append("\": \"").append(d.getValue()).append('"');
          sep = ", ";
        }
        json.append('}');
      }
      all.put("manifest.json", json.append("}\n").toString().getBytes(StandardCharsets.UTF_8));
    }
    all.putAll(files);
    return tarGz(all);
  }

  /** Returns a {@code .tar.gz} of exactly {@code entries}, names as given (hostile ones too). */
  static byte[] tarGz(Map<String, byte[]> entries) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new GZIPOutputStream(bytes))) {
      tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      for (Map.Entry<String, byte[]> e : entries.entrySet()) {
        TarArchiveEntry entry = new TarArchiveEntry(e.getKey(), true);
        entry.setSize(e.getValue().length);
        tar.putArchiveEntry(entry);
        tar.write(e.getValue());
        tar.closeArchiveEntry();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
