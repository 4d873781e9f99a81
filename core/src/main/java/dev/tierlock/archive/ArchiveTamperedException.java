package dev.tierlock.archive;

/**
 * The bytes offered for, or found under, an archive key do not hash to the key's SHA-256. The bytes
 * were discarded: nothing was cached and, for a store, nothing was uploaded. A read may be retried
 * after the tier is repaired (storing the right bytes replaces an object of a different size). Code
 * {@code archive_tampered}.
 */
public final class ArchiveTamperedException extends ArchiveException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "archive_tampered";

  /** The archive's key, which holds the expected digest. */
  private final ExtensionArchiveKey key;
  /** The SHA-256 of the bytes seen. */
  private final String actual;

  /**
   * Creates the exception.
   *
   * @param key the archive's key, which holds the expected digest
   * @param actual the SHA-256 of the bytes seen
   * @param verb what was being done, such as {@code read} or {@code store}
   * @param where where the bytes came from, such as {@code s3://bucket/prefix}
   */
  public ArchiveTamperedException(ExtensionArchiveKey key, String actual, String verb, String where) {
    super(CODE, key.toString(), "Cannot " + verb + " archive " + key + ": the bytes from " + where
        + " have SHA-256 " + actual + ", expected " + key.sha256() + "; they were discarded", null);
    this.key = key;
    this.actual = actual;
  }

  /** {@return the archive's key} */
  public ExtensionArchiveKey key() {
    return key;
  }

  /** {@return the expected SHA-256, the key's} */
  public String expected() {
    return key.sha256();
  }

  /** {@return the SHA-256 of the bytes seen} */
  public String actual() {
    return actual;
  }
}
