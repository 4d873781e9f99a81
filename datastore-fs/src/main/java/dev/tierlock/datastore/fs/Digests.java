package dev.tierlock.datastore.fs;

import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * SHA-256 digests: of an object's bytes, of a key (to name its lock and metadata files), and the
 * object version, which covers the bytes and the metadata together. Never derived from a file's
 * modification time, inode or size, which collide across writes. Stateless and thread-safe.
 */
final class Digests {

  private static final HexFormat HEX = HexFormat.of();
  private static final String VERSION_DOMAIN = "tierlock-fs-version 1\n";

  private Digests() {}

  /** Returns a fresh SHA-256 digest (every JVM provides it). */
  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot hash objects: this JVM has no SHA-256", e);
    }
  }

  /** Returns the lowercase hex form of a finished digest. */
  static String hex(MessageDigest digest) {
    return HEX.formatHex(digest.digest());
  }

  /** Returns the SHA-256 of {@code bytes} in lowercase hex. */
  static String sha256Hex(byte[] bytes) {
    MessageDigest digest = sha256();
    digest.update(bytes);
    return hex(digest);
  }

  /** Returns the lowercase hex SHA-256 of a key's UTF-8 text: the stem of its lock and metadata files. */
  static String ofKey(String key) {
    return sha256Hex(key.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Returns the version of an object: the SHA-256 over a domain tag, the digest of its bytes and
   * its metadata entries in name order.
   *
   * @param contentDigest the lowercase hex SHA-256 of the object's bytes
   * @param metadata the object's user metadata
   */
  static ObjectVersion version(String contentDigest, ObjectMetadata metadata) {
    StringBuilder text = new StringBuilder(VERSION_DOMAIN).append(contentDigest).append('\n');
    for (Map.Entry<String, String> e : metadata.values().entrySet()) {
      // names never hold '=' and values never hold a line break, so this encoding is unambiguous
      text.append(e.getKey()).append('=').append(e.getValue()).append('\n');
    }
    return ObjectVersion.of(sha256Hex(text.toString().getBytes(StandardCharsets.UTF_8)));
  }
}
