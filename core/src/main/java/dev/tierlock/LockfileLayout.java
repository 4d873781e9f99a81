package dev.tierlock;

import dev.tierlock.LockfileDocument.Member;
import dev.tierlock.internal.CodecTally;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a lockfile is laid out, as detected from its bytes, and how members written into it are
 * formatted so that they look like their neighbours. Immutable.
 *
 * <p>A multi-line file (the usual case) gets members formatted as {@code JSON.stringify(entry, null,
 * unit)} with {@code eol} line breaks, nested under the indentation of their line. A file whose
 * top-level object is written on one line (no line break between its braces, and at least one
 * member) has an indentation unit of nothing, so its members are written as {@code
 * JSON.stringify(entry)} does, compactly, keeping the object on one line; a new member copies the
 * spacing its neighbours use after the comma and around the colon.
 *
 * @param eol the line ending: the file's first line break ({@code \n}, {@code \r\n} or {@code \r}),
 *     {@code \n} when it has none
 * @param indent the indentation of a top-level member's line: that of the first member that starts
 *     a line, two spaces when none does
 * @param unit one level of indentation: {@code indent} when it is made of spaces only or of tabs
 *     only, two spaces otherwise
 * @param oneLine whether the top-level object is written on one line
 * @param oneLineLead the whitespace a new member gets after its comma, in a one-line object
 * @param oneLineColon the colon and the whitespace around it a new member gets, in a one-line object
 */
record LockfileLayout(String eol, String indent, String unit, boolean oneLine, String oneLineLead, String oneLineColon) {

  private static final String TWO_SPACES = "  ";

  /** The layout of {@code JSON.stringify(x, null, 2)}: two spaces, {@code \n}. */
  static final LockfileLayout DEFAULT = new LockfileLayout("\n", TWO_SPACES, TWO_SPACES, false, "", ": ");

  /**
   * Detects the layout of a parsed document.
   *
   * @param eol the file's first line break, or {@code \n} when it has none
   * @param breakInside whether there is a line break between the top-level braces
   * @param members the top-level members, in file order
   */
  static LockfileLayout detect(String eol, boolean breakInside, List<Member> members) {
    if (members.isEmpty()) {
      return new LockfileLayout(eol, TWO_SPACES, TWO_SPACES, false, "", ": ");
    }
    if (!breakInside) {
      Member last = members.get(members.size() - 1);
      String colon = colonOf(last.keyPart().toString());
      String lead = members.size() > 1 ? last.lead().toString() : colon.endsWith(" ") ? " " : "";
      return new LockfileLayout(eol, "", "", true, lead, colon);
    }
    for (Member m : members) {
      String indent = m.lead().afterLastLineBreak();
      if (indent != null) {
        return new LockfileLayout(eol, indent, uniform(indent) ? indent : TWO_SPACES, false, "", ": ");
      }
    }
    return new LockfileLayout(eol, TWO_SPACES, TWO_SPACES, false, "", ": ");
  }

  private static boolean uniform(String indent) {
    return !indent.isEmpty() && (indent.chars().allMatch(c -> c == ' ') || indent.chars().allMatch(c -> c == '\t'));
  }

  /** Returns the colon of a key part and the whitespace around it (the key's literal stripped). */
  private static String colonOf(String keyPart) {
    int colon = keyPart.lastIndexOf(':');
    int start = colon;
    while (start > 0 && isWhitespace(keyPart.charAt(start - 1))) {
      start--;
    }
    return keyPart.substring(start);
  }

  static boolean isWhitespace(int c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  }

  /** Returns this layout for an object that now spans lines (members added to an empty object). */
  LockfileLayout multiLine() {
    return oneLine ? new LockfileLayout(eol, TWO_SPACES, TWO_SPACES, false, "", ": ") : this;
  }

  /** Returns a new member for {@code name}, to be appended after the last member. */
  Member newMember(ExtensionName name, LockfileEntry entry) {
    JsonOutput out = new JsonOutput(256);
    out.write(oneLine ? oneLineLead : eol + indent);
    int keyAt = out.size();
    out.quote(name.value()).write(oneLine ? oneLineColon : ": ");
    int valueAt = out.size();
    write(entry, indent, out);
    byte[] bytes = out.array();
    return new Member(name.value(), new Span(bytes, 0, keyAt), new Span(bytes, keyAt, valueAt),
        new Span(bytes, valueAt, out.size()), Span.EMPTY, name, entry);
  }

  /**
   * Returns {@code entry} formatted as the value of the member whose lead is {@code lead}: nested
   * under the indentation of the line the member starts (the layout's {@code indent} when the member
   * does not start a line).
   */
  Span value(LockfileEntry entry, Span lead) {
    String line = lead.afterLastLineBreak();
    JsonOutput out = new JsonOutput(256);
    write(entry, line == null ? indent : line, out);
    return new Span(out.array(), 0, out.size());
  }

  /**
   * Returns the members of a document holding {@code entries}, in their order, each appended as
   * {@link #newMember} appends one; they are written into one array, the commas between them
   * included, so that the document's bytes are copied from it in one run.
   */
  List<Member> members(Map<ExtensionName, LockfileEntry> entries) {
    JsonOutput out = new JsonOutput(entries.size() * 512);
    JsonOutput.Indentation indentation = new JsonOutput.Indentation(eol, indent, unit);
    byte[] lead = (oneLine ? oneLineLead : eol + indent).getBytes(StandardCharsets.UTF_8);
    byte[] colon = (oneLine ? oneLineColon : ": ").getBytes(StandardCharsets.UTF_8);
    int[] at = new int[entries.size() * 4];
    int i = 0;
    for (Map.Entry<ExtensionName, LockfileEntry> e : entries.entrySet()) {
      if (i > 0) {
        out.write(',');
      }
      at[i] = out.size();
      out.write(lead);
      at[i + 1] = out.size();
      out.quote(e.getKey().value()).write(colon);
      at[i + 2] = out.size();
      write(e.getValue(), indentation, out);
      at[i + 3] = out.size();
      i += 4;
    }
    byte[] bytes = out.array();
    List<Member> members = new ArrayList<>(entries.size());
    i = 0;
    for (Map.Entry<ExtensionName, LockfileEntry> e : entries.entrySet()) {
      members.add(new Member(e.getKey().value(), new Span(bytes, at[i], at[i + 1]), new Span(bytes, at[i + 1], at[i + 2]),
          new Span(bytes, at[i + 2], at[i + 3]), Span.EMPTY, e.getKey(), e.getValue()));
      i += 4;
    }
    return members;
  }

  /** Writes {@code entry} nested under a line indented by {@code base}, in this layout. */
  void write(LockfileEntry entry, String base, JsonOutput out) {
    write(entry, new JsonOutput.Indentation(eol, base, unit), out);
  }

  private void write(LockfileEntry entry, JsonOutput.Indentation indentation, JsonOutput out) {
    CodecTally.formatted();
    if (oneLine) {
      out.compact(entry.toJson());
    } else {
      LockfileCodec.writePretty(entry, out, indentation);
    }
  }
}
