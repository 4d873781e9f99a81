package dev.tierlock.testkit.gcs;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * One live object generation held by the fake server. Immutable: a write or a metadata patch
 * replaces the whole value. The byte array is never handed out without a copy.
 *
 * @param bucket the bucket name
 * @param name the object name
 * @param bytes the object's data (never modified)
 * @param generation the data generation, unique and increasing across the server
 * @param metageneration the metadata generation, 1 for a fresh generation
 * @param contentType the content type
 * @param metadata the custom metadata
 * @param created when this generation was written
 * @param updated when this generation or its metadata last changed
 */
record FakeObject(
    String bucket,
    String name,
    byte[] bytes,
    long generation,
    long metageneration,
    String contentType,
    Map<String, String> metadata,
    Instant created,
    Instant updated) {

  FakeObject {
    metadata = Map.copyOf(metadata);
  }

  long size() {
    return bytes.length;
  }

  /** Returns the base64 MD5 of the data, as GCS reports {@code md5Hash}. */
  String md5() {
    return md5Of(bytes);
  }

  /** Returns the base64 big-endian CRC32C of the data, as GCS reports {@code crc32c}. */
  String crc32c() {
    return crc32cOf(bytes);
  }

  /** Returns this generation with new metadata and content type, metageneration plus one. */
  FakeObject withMetadata(Map<String, String> newMetadata, String newContentType, Instant now) {
    return new FakeObject(
        bucket, name, bytes, generation, metageneration + 1, newContentType, newMetadata, created, now);
  }

  static String md5Of(byte[] data) {
    try {
      return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot compute MD5: the JDK lacks it", e);
    }
  }

  static String crc32cOf(byte[] data) {
    CRC32C crc = new CRC32C();
    crc.update(data);
    return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
  }
}
