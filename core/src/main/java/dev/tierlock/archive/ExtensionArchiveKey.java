package dev.tierlock.archive;

import dev.tierlock.ExtensionName;
import dev.tierlock.InvalidInputException;
import dev.tierlock.TierPath;
import java.util.Optional;

/**
 * The identity of one extension archive: the scoped extension name and the SHA-256 of the archive's
 * bytes, exactly 64 lowercase hexadecimal characters. The archive's place in the config tier is
 * derived from the key alone: {@code config/pulled-archives/<name>/<sha256>.tar.gz}. Immutable;
 * ordered by name, then digest.
 *
 * @param name the extension the archive belongs to
 * @param sha256 the SHA-256 of the archive's bytes, 64 lowercase hex characters
 */
public record ExtensionArchiveKey(ExtensionName name, String sha256) implements Comparable<ExtensionArchiveKey> {

  /** The tier directory that holds every archive ({@link TierPath#ARCHIVES}). */
  public static final String DIRECTORY = TierPath.ARCHIVES;

  /** The file name suffix of every archive ({@link TierPath#ARCHIVE_SUFFIX}). */
  public static final String SUFFIX = TierPath.ARCHIVE_SUFFIX;

  /** The length of a digest, in characters. */
  public static final int SHA256_LENGTH = 64;

  /**
   * Validates the digest.
   *
   * @param name the extension the archive belongs to
   * @param sha256 the SHA-256 of the archive's bytes, 64 lowercase hex characters
   * @throws ArchiveException ({@code invalid_archive_key}) if {@code sha256} is not exactly 64 lowercase hex characters
   */
  public ExtensionArchiveKey {
    if (!isDigest(sha256)) {
      throw ArchiveException.invalidKey(name.value(), sha256, digestReason(sha256), null);
    }
  }

  /**
   * Parses a key from untrusted text.
   *
   * @param name the scoped extension name, such as {@code @scope/name}
   * @param sha256 the archive's SHA-256, 64 lowercase hex characters
   * @return the key
   * @throws ArchiveException ({@code invalid_archive_key}) if either part breaks its rule; the cause of a bad name is
   *     the {@link InvalidInputException}
   */
  public static ExtensionArchiveKey of(String name, String sha256) {
    ExtensionName parsed;
    try {
      parsed = ExtensionName.of(name);
    } catch (InvalidInputException e) {
      throw ArchiveException.invalidKey(name, sha256,
          "the name must match " + ExtensionName.PATTERN.pattern() + " and have at most "
              + ExtensionName.MAX_LENGTH + " characters", e);
    }
    return new ExtensionArchiveKey(parsed, sha256);
  }

  /**
   * {@return the key of an already validated name}
   *
   * @param name the extension the archive belongs to
   * @param sha256 the archive's SHA-256, 64 lowercase hex characters
   * @throws ArchiveException ({@code invalid_archive_key}) if {@code sha256} breaks its rule
   */
  public static ExtensionArchiveKey of(ExtensionName name, String sha256) {
    return new ExtensionArchiveKey(name, sha256);
  }

  /**
   * {@return whether {@code name} and {@code sha256} form a valid key; never throws}
   *
   * @param name the scoped extension name text
   * @param sha256 the digest text
   */
  public static boolean isValid(String name, String sha256) {
    return ExtensionName.isValid(name) && isDigest(sha256);
  }

  /**
   * {@return the key whose tier path is {@code path}, or empty when {@code path} is not exactly the
   * tier path of a valid key (used when listing the archive directory)}
   *
   * @param path the tier path to read a key from
   */
  public static Optional<ExtensionArchiveKey> fromTierPath(TierPath path) {
    return path.archiveOf().map(name -> new ExtensionArchiveKey(name, path.archiveSha256().orElseThrow()));
  }

  /**
   * {@return this archive's tier path, {@code config/pulled-archives/<name>/<sha256>.tar.gz}, built
   * from the validated parts and checked to stay inside the archive directory: no {@code .} or
   * {@code ..} segment, no empty segment, no leading {@code /}, no backslash or control character,
   * and exactly the segments of the name plus one file name}
   */
  public TierPath tierPath() {
    String fileName = sha256 + SUFFIX;
    String value = DIRECTORY + "/" + name.value() + "/" + fileName;
    checkContained(value, fileName);
    return TierPath.of(value);
  }

  /** {@return the archive's file name, {@code <sha256>.tar.gz}} */
  public String fileName() {
    return sha256 + SUFFIX;
  }

  @Override
  public int compareTo(ExtensionArchiveKey other) {
    int byName = name.compareTo(other.name);
    return byName != 0 ? byName : sha256.compareTo(other.sha256);
  }

  /** Returns {@code <name>@<sha256>}, the form used in messages. */
  @Override
  public String toString() {
    return name.value() + "@" + sha256;
  }

  private void checkContained(String value, String fileName) {
    String[] segments = value.split("/", -1);
    String[] nameSegments = name.value().split("/", -1);
    boolean contained = !value.startsWith("/")
        && segments.length == 2 + nameSegments.length + 1
        && segments[0].equals("config")
        && segments[1].equals("pulled-archives")
        && segments[segments.length - 1].equals(fileName);
    for (int i = 0; contained && i < segments.length; i++) {
      String segment = segments[i];
      contained = !segment.isEmpty() && !segment.equals(".") && !segment.equals("..")
          && segment.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '\\' && c != ':');
      if (contained && i >= 2 && i < segments.length - 1) {
        contained = segment.equals(nameSegments[i - 2]);
      }
    }
    if (!contained) {
      throw ArchiveException.invalidKey(name.value(), sha256,
          "its tier path \"" + Printable.of(value) + "\" would leave " + DIRECTORY, null);
    }
  }

  private static boolean isDigest(String text) {
    if (text.length() != SHA256_LENGTH) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static String digestReason(String text) {
    if (text.length() != SHA256_LENGTH) {
      return "a SHA-256 is exactly " + SHA256_LENGTH + " lowercase hex characters, got " + text.length()
          + " characters";
    }
    return "a SHA-256 holds only lowercase hex characters 0-9 and a-f";
  }
}
