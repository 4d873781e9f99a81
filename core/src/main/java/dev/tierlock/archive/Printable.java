package dev.tierlock.archive;

/** Renders untrusted text (entry names, link targets, digests) safely inside a message. */
final class Printable {

  private static final int MAX_CHARS = 200;

  private Printable() {}

  /**
   * Returns {@code text} with every control character (C0, DEL, C1) escaped as {@code \\uXXXX},
   * cut after {@value #MAX_CHARS} characters.
   */
  static String of(String text) {
    StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_CHARS) + 8);
    for (int i = 0; i < text.length(); i++) {
      if (out.length() >= MAX_CHARS) {
        return out.append("...(").append(text.length()).append(" characters)").toString();
      }
      char c = text.charAt(i);
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
