package dev.tierlock.archive;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

/**
 * Writes tar bytes header by header, including forms no well-behaved writer produces (lying sizes,
 * absolute and control-character names, devices, sparse types), so that the hostile-archive corpus
 * is built by the tests themselves.
 */
final class RawTar {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  static RawTar create() {
    return new RawTar();
  }

  /** Adds a regular file with its data. */
  RawTar file(String name, byte[] data) {
    return header(name, '0', 0644, data.length, "").data(data);
  }

  /** Adds a regular file whose bytes are given as text. */
  RawTar file(String name, String text) {
    return file(name, text.getBytes(StandardCharsets.UTF_8));
  }

  /** Adds a directory. */
  RawTar directory(String name) {
    return header(name, '5', 0755, 0, "");
  }

  /** Adds a symbolic link. */
  RawTar symlink(String name, String target) {
    return header(name, '2', 0777, 0, target);
  }

  /** Adds a hard link. */
  RawTar hardLink(String name, String target) {
    return header(name, '1', 0644, 0, target);
  }

  /** Adds a PAX extended header ({@code x}) applying to the next entry. */
  RawTar pax(Map<String, String> records) {
    return extended('x', records);
  }

  /** Adds one PAX record for the next entry. */
  RawTar pax(String key, String value) {
    Map<String, String> records = new LinkedHashMap<>();
    records.put(key, value);
    return pax(records);
  }

  /** Adds an extended header of the given type ({@code x} or {@code g}). */
  RawTar extended(char type, Map<String, String> records) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (Map.Entry<String, String> record : records.entrySet()) {
      byte[] content = (" " + record.getKey() + "=" + record.getValue() + "\n").getBytes(StandardCharsets.UTF_8);
      int length = content.length;
      int digits = String.valueOf(length).length();
      while (String.valueOf(length + digits).length() != digits) {
        digits++;
      }
      body.writeBytes(String.valueOf(length + digits).getBytes(StandardCharsets.US_ASCII));
      body.writeBytes(content);
    }
    byte[] bytes = body.toByteArray();
    return header("./PaxHeaders/x", type, 0644, bytes.length, "").data(bytes);
  }

  /**
   * Adds a header only, declaring {@code size} bytes of data; the caller adds data with {@link
   * #data} or {@link #rawBytes}, or lets the header lie.
   */
  RawTar header(String name, char type, int mode, long size, String linkName) {
    return header(name.getBytes(StandardCharsets.UTF_8), type, mode, size, linkName);
  }

  /** Adds a header whose name is given as raw bytes (for invalid UTF-8). */
  RawTar header(byte[] name, char type, int mode, long size, String linkName) {
    byte[] h = new byte[512];
    put(h, 0, 100, name);
    putOctal(h, 100, 8, mode);
    putOctal(h, 108, 8, 1000);
    putOctal(h, 116, 8, 1000);
    putOctal(h, 124, 12, size);
    putOctal(h, 136, 12, 1_700_000_000L);
    h[156] = (byte) type;
    put(h, 157, 100, linkName.getBytes(StandardCharsets.UTF_8));
    put(h, 257, 6, "ustar\0".getBytes(StandardCharsets.US_ASCII));
    put(h, 263, 2, "00".getBytes(StandardCharsets.US_ASCII));
    put(h, 265, 32, "user".getBytes(StandardCharsets.US_ASCII));
    put(h, 297, 32, "group".getBytes(StandardCharsets.US_ASCII));
    putOctal(h, 329, 8, 0);
    putOctal(h, 337, 8, 0);
    Arrays.fill(h, 148, 156, (byte) ' ');
    long sum = 0;
    for (byte b : h) {
      sum += b & 0xff;
    }
    byte[] checksum = String.format("%06o\0 ", sum).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(checksum, 0, h, 148, 8);
    out.writeBytes(h);
    return this;
  }

  /** Adds data padded to a whole record. */
  RawTar data(byte[] data) {
    out.writeBytes(data);
    int pad = (512 - data.length % 512) % 512;
    out.writeBytes(new byte[pad]);
    return this;
  }

  /** Adds bytes exactly as given (no padding). */
  RawTar rawBytes(byte[] bytes) {
    out.writeBytes(bytes);
    return this;
  }

  /** Adds the end-of-archive marker: two zero records. */
  RawTar end() {
    out.writeBytes(new byte[1024]);
    return this;
  }

  /** Returns the tar bytes written so far. */
  byte[] tar() {
    return out.toByteArray();
  }

  /** Returns the tar bytes written so far, gzipped. */
  byte[] gzip() {
    return gzip(tar());
  }

  /** Returns {@code bytes} gzipped as one member. */
  static byte[] gzip(byte[] bytes) {
    ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(compressed)) {
      gzip.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return compressed.toByteArray();
  }

  private static void put(byte[] header, int offset, int length, byte[] value) {
    System.arraycopy(value, 0, header, offset, Math.min(length, value.length));
  }

  private static void putOctal(byte[] header, int offset, int length, long value) {
    String text = String.format("%0" + (length - 1) + "o", value);
    put(header, offset, length - 1, text.getBytes(StandardCharsets.US_ASCII));
    header[offset + length - 1] = 0;
  }
}
