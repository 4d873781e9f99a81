package dev.tierlock;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The shared lockfile as bytes: the text a document was parsed from (or generated as), cut into the
 * spans of its top-level members, and what those members hold. Edits are surgical: {@link #with}
 * and {@link #without} change only the spans of the member they touch and copy every other span
 * as it is, so the bytes of untouched members, the file's indentation, line endings, BOM and final
 * newline never move. Immutable and thread-safe.
 *
 * <p>The bytes are {@code head member ("," member)* closing tail}: {@code head} runs from the start
 * of the file to the opening brace included, {@code closing} is the whitespace before the closing
 * brace and {@code tail} the closing brace and what follows it. A member is its {@code lead} (the
 * whitespace after the preceding comma or brace), its key, colon and the whitespace around it
 * ({@code keyPart}), its {@code value}, and its {@code trail} (the whitespace before the following
 * comma; always empty for the last member, whose following whitespace is {@code closing}).
 */
final class LockfileDocument {

  private static final Span HEAD = Span.of("{");
  private static final Span TAIL = Span.of("}\n");

  /** The fresh document with no members: {@code {}} and a newline. */
  static final LockfileDocument EMPTY = fresh(Map.of());

  private final Span head;
  private final List<Member> members;
  private final Span closing;
  private final Span tail;
  private final LockfileLayout layout;
  private final Map<ExtensionName, LockfileEntry> entries;
  private final List<Lockfile.Foreign> foreign;
  private final Map<String, Lockfile.Foreign> foreignByKey;

  LockfileDocument(Span head, List<Member> members, Span closing, Span tail, LockfileLayout layout,
      Map<ExtensionName, LockfileEntry> entries, List<Lockfile.Foreign> foreign) {
    this.head = head;
    this.members = Collections.unmodifiableList(members);
    this.closing = closing;
    this.tail = tail;
    this.layout = layout;
    this.entries = Collections.unmodifiableMap(entries);
    this.foreign = List.copyOf(foreign);
    Map<String, Lockfile.Foreign> byKey = new LinkedHashMap<>();
    foreign.forEach(f -> byKey.put(f.name(), f));
    this.foreignByKey = Collections.unmodifiableMap(byKey);
  }

  private LockfileDocument(LockfileDocument base, List<Member> members, Span closing, LockfileLayout layout,
      Map<ExtensionName, LockfileEntry> entries) {
    this.head = base.head;
    this.members = Collections.unmodifiableList(members);
    this.closing = closing;
    this.tail = base.tail;
    this.layout = layout;
    this.entries = Collections.unmodifiableMap(entries);
    this.foreign = base.foreign;
    this.foreignByKey = base.foreignByKey;
  }

  /**
   * Returns a document generated from {@code entries}, in their order, formatted as {@code
   * JSON.stringify(entries, null, 2)} followed by a newline.
   */
  static LockfileDocument fresh(Map<ExtensionName, LockfileEntry> entries) {
    LockfileLayout layout = LockfileLayout.DEFAULT;
    List<Member> members = new ArrayList<>(entries.size());
    entries.forEach((name, entry) -> members.add(layout.newMember(name, entry)));
    Span closing = members.isEmpty() ? Span.EMPTY : Span.of(layout.eol());
    return new LockfileDocument(HEAD, members, closing, TAIL, layout, new LinkedHashMap<>(entries), List.of());
  }

  /** Returns the entries, in file order (unmodifiable). */
  Map<ExtensionName, LockfileEntry> entries() {
    return entries;
  }

  /** Returns the foreign members, in file order (unmodifiable). */
  List<Lockfile.Foreign> foreign() {
    return foreign;
  }

  /** Returns the top-level members, entries and foreign ones, in file order (unmodifiable). */
  List<Member> members() {
    return members;
  }

  /** Returns the layout new and rewritten members are written in. */
  LockfileLayout layout() {
    return layout;
  }

  /**
   * Returns this document with {@code name} mapped to {@code entry}: this document when the entry
   * is already there and equal; the member's value rewritten in place when the name exists (its key
   * and the whitespace around it kept); a member appended after the last one otherwise.
   *
   * @throws ForeignEntryException if the key is held by a foreign member
   */
  LockfileDocument with(ExtensionName name, LockfileEntry entry) {
    refuseForeign("put", name);
    LockfileEntry old = entries.get(name);
    if (entry.equals(old)) {
      return this;
    }
    List<Member> copy = new ArrayList<>(members.size() + 1);
    copy.addAll(members);
    Map<ExtensionName, LockfileEntry> map = new LinkedHashMap<>(entries);
    map.put(name, entry);
    if (old != null) {
      int i = indexOf(name.value());
      Member m = copy.get(i);
      copy.set(i, new Member(m.key(), m.lead(), m.keyPart(), layout.value(entry, m.lead()), m.trail()));
      return new LockfileDocument(this, copy, closing, layout, map);
    }
    if (members.isEmpty()) {
      LockfileLayout multiLine = layout.multiLine();
      copy.add(multiLine.newMember(name, entry));
      return new LockfileDocument(this, copy, Span.of(multiLine.eol()), multiLine, map);
    }
    copy.add(layout.newMember(name, entry));
    return new LockfileDocument(this, copy, closing, layout, map);
  }

  /**
   * Returns this document without {@code name}: the member and exactly one separating comma removed
   * (the comma after it when it is first, the one before it otherwise), every other byte kept; when
   * it was the only member, the object becomes {@code {}}. This document when there is no such
   * entry.
   *
   * @throws ForeignEntryException if the key is held by a foreign member
   */
  LockfileDocument without(ExtensionName name) {
    refuseForeign("remove", name);
    if (!entries.containsKey(name)) {
      return this;
    }
    List<Member> copy = new ArrayList<>(members);
    copy.remove(indexOf(name.value()));
    Map<ExtensionName, LockfileEntry> map = new LinkedHashMap<>(entries);
    map.remove(name);
    return new LockfileDocument(this, copy, copy.isEmpty() ? Span.EMPTY : closing, layout, map);
  }

  private void refuseForeign(String verb, ExtensionName name) {
    Lockfile.Foreign f = foreignByKey.get(name.value());
    if (f != null) {
      throw new ForeignEntryException(verb, f.name(), f.reason());
    }
  }

  private int indexOf(String key) {
    for (int i = 0; i < members.size(); i++) {
      if (members.get(i).key().equals(key)) {
        return i;
      }
    }
    throw new IllegalStateException("Cannot find lockfile member " + key + ": the document's index is inconsistent");
  }

  /** Returns the document's bytes: the source bytes when untouched. A new array on every call. */
  byte[] bytes() {
    int size = head.length() + closing.length() + tail.length() + Math.max(0, members.size() - 1);
    for (Member m : members) {
      size += m.length();
    }
    byte[] out = new byte[size];
    int at = head.copyInto(out, 0);
    for (int i = 0; i < members.size(); i++) {
      if (i > 0) {
        out[at++] = ',';
      }
      at = members.get(i).copyInto(out, at);
    }
    at = closing.copyInto(out, at);
    tail.copyInto(out, at);
    return out;
  }

  /** Returns the document's text: its bytes decoded as UTF-8, without a byte order mark. */
  String text() {
    byte[] bytes = bytes();
    int from = LockfileParser.hasBom(bytes) ? 3 : 0;
    return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
  }

  /**
   * One top-level member.
   *
   * @param key the key, decoded
   * @param lead the whitespace before the key
   * @param keyPart the key's literal, the colon and the whitespace around the colon
   * @param value the value's literal
   * @param trail the whitespace between the value and the following comma
   */
  record Member(String key, Span lead, Span keyPart, Span value, Span trail) {

    int length() {
      return lead.length() + keyPart.length() + value.length() + trail.length();
    }

    int copyInto(byte[] out, int at) {
      return trail.copyInto(out, value.copyInto(out, keyPart.copyInto(out, lead.copyInto(out, at))));
    }
  }

  /** A range of bytes of an array nobody writes to. Immutable. */
  static final class Span {

    static final Span EMPTY = new Span(new byte[0], 0, 0);

    private final byte[] bytes;
    private final int from;
    private final int to;

    Span(byte[] bytes, int from, int to) {
      if (from < 0 || to < from || to > bytes.length) {
        throw new IllegalArgumentException("Cannot cut span [" + from + ", " + to + ") of " + bytes.length + " bytes");
      }
      this.bytes = bytes;
      this.from = from;
      this.to = to;
    }

    /** Returns the span of {@code text} encoded as UTF-8. */
    static Span of(String text) {
      byte[] b = text.getBytes(StandardCharsets.UTF_8);
      return new Span(b, 0, b.length);
    }

    int length() {
      return to - from;
    }

    int copyInto(byte[] out, int at) {
      System.arraycopy(bytes, from, out, at, to - from);
      return at + to - from;
    }

    /**
     * Returns the text after the last line break of this span (for whitespace: the indentation of
     * the line it ends on), or null when it holds no line break.
     */
    @Nullable String afterLastLineBreak() {
      for (int i = to - 1; i >= from; i--) {
        if (bytes[i] == '\n' || bytes[i] == '\r') {
          return new String(bytes, i + 1, to - i - 1, StandardCharsets.UTF_8);
        }
      }
      return null;
    }

    @Override
    public String toString() {
      return new String(bytes, from, to - from, StandardCharsets.UTF_8);
    }
  }
}
