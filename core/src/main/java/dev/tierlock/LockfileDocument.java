package dev.tierlock;

import dev.tierlock.internal.CodecTally;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The shared lockfile as bytes: the text a document was parsed from (or generated as), cut into the
 * spans of its top-level members, and what those members hold. Edits are surgical: {@link #with}
 * and {@link #without} change only the spans of the member they touch and share every other member
 * as it is, so the bytes of untouched members, the file's indentation, line endings, BOM and final
 * newline never move; {@link #bytes()} copies the untouched runs of the original bytes whole and
 * splices the rewritten members between them. Immutable and thread-safe.
 *
 * <p>The bytes are {@code head member ("," member)* closing tail}: {@code head} runs from the start
 * of the file to the opening brace included, {@code closing} is the whitespace before the closing
 * brace and {@code tail} the closing brace and what follows it. A member is its {@code lead} (the
 * whitespace after the preceding comma or brace), its key, colon and the whitespace around it
 * ({@code keyPart}), its {@code value}, and its {@code trail} (the whitespace before the following
 * comma; always empty for the last member, whose following whitespace is {@code closing}).
 *
 * <p>Nothing is done before it is needed: a parsed member's value is decoded the first time its
 * entry is asked for ({@link Member#content()}), and a fresh document ({@link #fresh}) is only its
 * entries until its bytes or members are asked for, then formatted once. The entries, the foreign
 * members and the index of keys are each worked out once, on first use.
 */
final class LockfileDocument {

  private static final Span HEAD = Span.of("{");
  private static final Span TAIL = Span.of("}\n");

  /** The fresh document with no members: {@code {}} and a newline. */
  static final LockfileDocument EMPTY = fresh(Map.of());

  private final Span head;
  private final Span closing;
  private final Span tail;
  private final LockfileLayout layout;
  /** The entries a fresh document was generated from; null for a parsed one and what derives from it. */
  private final @Nullable Map<ExtensionName, LockfileEntry> generated;
  private volatile @Nullable List<Member> members;
  private volatile @Nullable Map<ExtensionName, LockfileEntry> entries;
  private volatile @Nullable List<Lockfile.Foreign> foreign;
  private volatile @Nullable Map<String, Integer> index;
  /** The member the last {@link #with} wrote, so that the same change applied again formats nothing. */
  private volatile @Nullable Written written;

  /** A parsed document: its members' values are decoded when first read. */
  LockfileDocument(Span head, List<Member> members, Span closing, Span tail, LockfileLayout layout) {
    this(head, Collections.unmodifiableList(members), closing, tail, layout, null, null);
  }

  private LockfileDocument(Span head, @Nullable List<Member> members, Span closing, Span tail, LockfileLayout layout,
      @Nullable Map<ExtensionName, LockfileEntry> generated, @Nullable Map<String, Integer> index) {
    this.head = head;
    this.members = members;
    this.closing = closing;
    this.tail = tail;
    this.layout = layout;
    this.generated = generated;
    this.entries = generated;
    this.foreign = generated == null ? null : List.of();
    this.index = index;
  }

  /**
   * Returns a document generated from {@code entries}, in their order, formatted as {@code
   * JSON.stringify(entries, null, 2)} followed by a newline (when its bytes are first asked for).
   */
  static LockfileDocument fresh(Map<ExtensionName, LockfileEntry> entries) {
    return generated(new LinkedHashMap<>(entries));
  }

  /** Returns the fresh document of {@code entries}, which it keeps (nobody changes them after). */
  private static LockfileDocument generated(Map<ExtensionName, LockfileEntry> entries) {
    Span closing = entries.isEmpty() ? Span.EMPTY : Span.of(LockfileLayout.DEFAULT.eol());
    return new LockfileDocument(HEAD, null, closing, TAIL, LockfileLayout.DEFAULT, Collections.unmodifiableMap(entries),
        null);
  }

  /** Returns the entries, in file order (unmodifiable); decodes every member not decoded yet. */
  Map<ExtensionName, LockfileEntry> entries() {
    Map<ExtensionName, LockfileEntry> known = entries;
    if (known == null) {
      List<Member> all = members();
      Map<ExtensionName, LockfileEntry> map = new LinkedHashMap<>(all.size() * 4 / 3 + 1);
      for (Member m : all) {
        if (m.content() instanceof Content.Entry e) {
          map.put(e.name(), e.entry());
        }
      }
      known = Collections.unmodifiableMap(map);
      entries = known;
    }
    return known;
  }

  /** Returns the foreign members, in file order (unmodifiable); decodes every member not decoded yet. */
  List<Lockfile.Foreign> foreign() {
    List<Lockfile.Foreign> known = foreign;
    if (known == null) {
      List<Lockfile.Foreign> list = new ArrayList<>();
      for (Member m : members()) {
        if (m.content() instanceof Content.Foreign f) {
          list.add(f.member());
        }
      }
      known = List.copyOf(list);
      foreign = known;
    }
    return known;
  }

  /** Returns whether the document has no entries; decodes members only until it finds one. */
  boolean isEmpty() {
    Map<ExtensionName, LockfileEntry> known = entries;
    if (known != null) {
      return known.isEmpty();
    }
    for (Member m : members()) {
      if (m.content() instanceof Content.Entry) {
        return false;
      }
    }
    return true;
  }

  /** Returns the entry of {@code name}, or null; decodes at most that member. */
  @Nullable LockfileEntry entry(ExtensionName name) {
    if (generated != null) {
      return generated.get(name);
    }
    int at = position(name.value());
    return at < 0 || !(members().get(at).content() instanceof Content.Entry e) ? null : e.entry();
  }

  /** Returns whether a foreign member holds {@code name}'s key; decodes at most that member. */
  boolean isForeign(ExtensionName name) {
    if (generated != null) {
      return false;
    }
    int at = position(name.value());
    return at >= 0 && !(members().get(at).content() instanceof Content.Entry);
  }

  /** Returns the index of the member whose key is {@code key}, or -1 when there is none. */
  int position(String key) {
    Map<String, Integer> known = index;
    if (known == null) {
      known = new HashMap<>((generated != null ? generated.size() : members().size()) * 4 / 3 + 1);
      if (generated != null) {
        for (ExtensionName name : generated.keySet()) {
          known.put(name.value(), known.size());
        }
      } else {
        List<Member> all = members();
        for (int i = 0; i < all.size(); i++) {
          known.put(all.get(i).key(), i);
        }
      }
      index = known;
    }
    Integer at = known.get(key);
    return at == null ? -1 : at;
  }

  /** Returns the top-level members, entries and foreign ones, in file order (unmodifiable). */
  List<Member> members() {
    List<Member> known = members;
    if (known == null) {
      known = Collections.unmodifiableList(layout.members(entries()));
      members = known;
    }
    return known;
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
   * @throws LockfileFormatException ({@code foreign_entry}) if the key is held by a foreign member
   */
  LockfileDocument with(ExtensionName name, LockfileEntry entry) {
    if (generated != null && members == null) {
      // not formatted yet: the result is the fresh document of the changed entries, byte for byte
      if (entry.equals(generated.get(name))) {
        return this;
      }
      Map<ExtensionName, LockfileEntry> map = new LinkedHashMap<>(generated);
      map.put(name, entry);
      return generated(map);
    }
    int at = position(name.value());
    List<Member> all = members();
    Member old = at < 0 ? null : all.get(at);
    if (old != null && refuseForeign("put", old).entry().equals(entry)) {
      return this;
    }
    List<Member> copy = new ArrayList<>(all.size() + 1);
    copy.addAll(all);
    if (old != null) {
      copy.set(at, written(old, name, entry));
      return new LockfileDocument(head, Collections.unmodifiableList(copy), closing, tail, layout, null, index);
    }
    copy.add(written(null, name, entry));
    if (all.isEmpty()) {
      LockfileLayout multiLine = layout.multiLine();
      return new LockfileDocument(head, Collections.unmodifiableList(copy), Span.of(multiLine.eol()), tail, multiLine,
          null, null);
    }
    return new LockfileDocument(head, Collections.unmodifiableList(copy), closing, tail, layout, null, null);
  }

  /** Returns the member holding {@code entry} in place of {@code old} (appended when null), formatting it once. */
  private Member written(@Nullable Member old, ExtensionName name, LockfileEntry entry) {
    Written last = written;
    if (last != null && last.replaced() == old && last.entry() == entry && last.member().key().equals(name.value())) {
      return last.member();
    }
    Member member = old != null
        ? new Member(old.key(), old.lead(), old.keyPart(), layout.value(entry, old.lead()), old.trail(), name, entry)
        : (members().isEmpty() ? layout.multiLine() : layout).newMember(name, entry);
    written = new Written(old, entry, member);
    return member;
  }

  /**
   * Returns this document without {@code name}: the member and exactly one separating comma removed
   * (the comma after it when it is first, the one before it otherwise), every other byte kept; when
   * it was the only member, the object becomes {@code {}}. This document when there is no such
   * entry.
   *
   * @throws LockfileFormatException ({@code foreign_entry}) if the key is held by a foreign member
   */
  LockfileDocument without(ExtensionName name) {
    if (generated != null && members == null) {
      if (!generated.containsKey(name)) {
        return this;
      }
      Map<ExtensionName, LockfileEntry> map = new LinkedHashMap<>(generated);
      map.remove(name);
      return generated(map);
    }
    int at = position(name.value());
    if (at < 0) {
      return this;
    }
    refuseForeign("remove", members().get(at));
    List<Member> copy = new ArrayList<>(members());
    copy.remove(at);
    return new LockfileDocument(head, Collections.unmodifiableList(copy), copy.isEmpty() ? Span.EMPTY : closing, tail,
        layout, null, null);
  }

  private static Content.Entry refuseForeign(String verb, Member member) {
    Content content = member.content();
    if (content instanceof Content.Foreign f) {
      throw LockfileFormatException.foreignEntry(verb, f.member().name(), f.member().reason());
    }
    return (Content.Entry) content;
  }

  /**
   * Returns the document's bytes: the source bytes when untouched, else the untouched runs of them
   * with the rewritten members spliced in. A new array on every call.
   */
  byte[] bytes() {
    List<Member> all = members();
    int size = head.length() + closing.length() + tail.length() + Math.max(0, all.size() - 1);
    for (Member m : all) {
      size += m.length();
    }
    Span.Splice out = new Span.Splice(new byte[size]);
    out.add(head);
    for (int i = 0; i < all.size(); i++) {
      if (i > 0) {
        out.comma();
      }
      Member m = all.get(i);
      out.add(m.lead());
      out.add(m.keyPart());
      out.add(m.value());
      out.add(m.trail());
    }
    out.add(closing);
    out.add(tail);
    CodecTally.assembled(size);
    return out.finish();
  }

  /** Returns the document's text: its bytes decoded as UTF-8, without a byte order mark. */
  String text() {
    byte[] bytes = bytes();
    int from = LockfileParser.hasBom(bytes) ? 3 : 0;
    return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
  }

  /** The member {@link #with} wrote for {@code entry} in place of {@code replaced} (null: appended). */
  private record Written(@Nullable Member replaced, LockfileEntry entry, Member member) {}

  /** What a member holds: an entry, or a value kept verbatim as foreign. */
  sealed interface Content {

    /** A valid entry under a valid name. */
    record Entry(ExtensionName name, LockfileEntry entry) implements Content {}

    /** A member kept verbatim: its key is not a valid name or its value not a valid entry. */
    record Foreign(Lockfile.Foreign member) implements Content {}
  }

  /**
   * One top-level member: its spans, and what it holds, decoded from its value's bytes the first
   * time it is asked for (a benign race: every thread decodes the same content). Immutable in what
   * it shows; thread-safe.
   */
  static final class Member {

    private final String key;
    private final Span lead;
    private final Span keyPart;
    private final Span value;
    private final Span trail;
    private volatile @Nullable Content content;

    /**
     * A member as parsed; what it holds is decoded from {@code value} when first asked for.
     *
     * @param key the key, decoded
     * @param lead the whitespace before the key
     * @param keyPart the key's literal, the colon and the whitespace around the colon
     * @param value the value's literal
     * @param trail the whitespace between the value and the following comma
     */
    Member(String key, Span lead, Span keyPart, Span value, Span trail) {
      this.key = key;
      this.lead = lead;
      this.keyPart = keyPart;
      this.value = value;
      this.trail = trail;
    }

    /** A member written for {@code entry}, whose content is known. */
    Member(String key, Span lead, Span keyPart, Span value, Span trail, ExtensionName name, LockfileEntry entry) {
      this(key, lead, keyPart, value, trail);
      this.content = new Content.Entry(name, entry);
    }

    String key() {
      return key;
    }

    Span lead() {
      return lead;
    }

    Span keyPart() {
      return keyPart;
    }

    Span value() {
      return value;
    }

    Span trail() {
      return trail;
    }

    /** Returns what the member holds, decoding its value the first time. */
    Content content() {
      Content known = content;
      if (known == null) {
        known = LockfileParser.decode(key, value);
        content = known;
      }
      return known;
    }

    int length() {
      return lead.length() + keyPart.length() + value.length() + trail.length();
    }

    @Override
    public String toString() {
      return "Member[" + key + "]";
    }
  }
}
