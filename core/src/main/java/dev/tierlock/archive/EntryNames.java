package dev.tierlock.archive;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules for entry names and link targets, applied to the text the tar reader decoded. Names are
 * normalised to {@code /}-joined segments with {@code .} and empty segments dropped; everything
 * that could mean something else on some filesystem is refused rather than guessed at. Stateless.
 */
final class EntryNames {

  static final int MAX_SEGMENT_BYTES = 255;

  private final String source;
  private final ArchiveLimits limits;

  EntryNames(String source, ArchiveLimits limits) {
    this.source = source;
    this.limits = limits;
  }

  /**
   * Returns the normalised path of an entry name, empty for the archive root ({@code ./}).
   *
   * @throws ArchiveException ({@code archive_rejected}) if the name breaks a rule
   * @throws ArchiveException ({@code archive_limit}) if the name is too long
   */
  String entryPath(String name) {
    if (name.isEmpty()) {
      throw reject(name, ArchiveException.Rule.EMPTY_NAME, "");
    }
    checkText(name, name, "name");
    if (name.startsWith("/") || hasDrive(name)) {
      throw reject(name, ArchiveException.Rule.ABSOLUTE_PATH, "");
    }
    List<String> segments = segments(name, name, ArchiveException.Rule.PARENT_REFERENCE);
    return String.join("/", segments);
  }

  /**
   * Checks a symbolic link's target and returns it unchanged (it stays relative to the link's
   * directory; whether it escapes is decided once the whole archive is known).
   *
   * @throws ArchiveException ({@code archive_rejected}) if the target is empty, absolute or holds a forbidden character
   * @throws ArchiveException ({@code archive_limit}) if the target is too long
   */
  String symbolicLinkTarget(String name, String target) {
    if (target.isEmpty()) {
      throw reject(name, ArchiveException.Rule.EMPTY_NAME, "empty link target");
    }
    checkText(name, target, "link target");
    if (target.startsWith("/") || hasDrive(target)) {
      throw reject(name, ArchiveException.Rule.ABSOLUTE_LINK_TARGET, "target \"" + Printable.of(target) + "\"");
    }
    for (String segment : target.split("/", -1)) {
      checkSegmentLength(name, segment);
    }
    return target;
  }

  /**
   * Returns the normalised path a hard link names (tar hard link targets are relative to the
   * archive root).
   *
   * @throws ArchiveException ({@code archive_rejected}) if the target is empty, absolute, holds {@code ..} or a
   *     forbidden character
   * @throws ArchiveException ({@code archive_limit}) if the target is too long
   */
  String hardLinkTarget(String name, String target) {
    if (target.isEmpty()) {
      throw reject(name, ArchiveException.Rule.EMPTY_NAME, "empty link target");
    }
    checkText(name, target, "link target");
    if (target.startsWith("/") || hasDrive(target)) {
      throw reject(name, ArchiveException.Rule.ABSOLUTE_LINK_TARGET, "target \"" + Printable.of(target) + "\"");
    }
    List<String> segments = segments(name, target, ArchiveException.Rule.LINK_ESCAPES);
    if (segments.isEmpty()) {
      throw reject(name, ArchiveException.Rule.HARD_LINK_TARGET, "target \"" + Printable.of(target) + "\" is the root");
    }
    return String.join("/", segments);
  }

  /** Returns whether a normalised file path names an AppleDouble {@code ._*} file. */
  static boolean isAppleDouble(String path) {
    int slash = path.lastIndexOf('/');
    return path.startsWith("._", slash + 1);
  }

  private List<String> segments(String name, String text, ArchiveException.Rule parentRule) {
    List<String> segments = new ArrayList<>();
    for (String segment : text.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".")) {
        continue;
      }
      if (segment.equals("..")) {
        throw reject(name, parentRule, text.equals(name) ? "" : "target \"" + Printable.of(text) + "\"");
      }
      checkSegmentLength(name, segment);
      segments.add(segment);
    }
    return segments;
  }

  private void checkText(String name, String text, String what) {
    if (text.length() > limits.maxPathLength()) {
      throw ArchiveException.limit(source, ArchiveException.Limit.PATH_LENGTH, limits.maxPathLength(), text.length());
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
        throw reject(name, ArchiveException.Rule.CONTROL_CHARACTER,
            what + " holds U+" + String.format("%04X", (int) c));
      }
      if (c == '\\') {
        throw reject(name, ArchiveException.Rule.BACKSLASH, what + " \"" + Printable.of(text) + "\"");
      }
      if (c == '\uFFFD' || (Character.isSurrogate(c) && !validSurrogate(text, i))) {
        throw reject(name, ArchiveException.Rule.INVALID_ENCODING, what + " is not valid UTF-8");
      }
    }
  }

  private void checkSegmentLength(String name, String segment) {
    if (segment.length() * 3 > MAX_SEGMENT_BYTES
        && segment.getBytes(StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
      throw reject(name, ArchiveException.Rule.SEGMENT_TOO_LONG, "");
    }
  }

  private static boolean validSurrogate(String text, int i) {
    char c = text.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1));
    }
    return i > 0 && Character.isHighSurrogate(text.charAt(i - 1));
  }

  private static boolean hasDrive(String text) {
    return text.length() >= 2 && text.charAt(1) == ':'
        && ((text.charAt(0) >= 'a' && text.charAt(0) <= 'z') || (text.charAt(0) >= 'A' && text.charAt(0) <= 'Z'));
  }

  private ArchiveException reject(String name, ArchiveException.Rule rule, String detail) {
    return ArchiveException.rejected(source, name, rule, detail);
  }
}
