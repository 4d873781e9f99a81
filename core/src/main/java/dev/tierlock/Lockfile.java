package dev.tierlock;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The shared lockfile: extension names mapped to their {@link LockfileEntry}, in file order, and
 * the bytes they are written as. Immutable and thread-safe; every change returns a new lockfile.
 *
 * <p>A lockfile {@linkplain #parse parsed} from bytes keeps them: {@link #bytes()} returns them
 * exactly until a change, and a change rewrites only the bytes of the member it changes. {@link
 * #with} replaces the value of an existing name in place (its key and the whitespace around it
 * kept) and appends a new name after the last member; {@link #without} removes a member and one
 * separating comma. Every other member keeps its exact bytes, and the file keeps its indentation,
 * line endings, byte order mark and final newline (or its absence). A written entry is formatted as
 * {@code JSON.stringify(entry, null, 2)} would be, in the file's indentation unit and line ending and
 * nested at the member's depth, with {@code files} sorted; in a file whose top-level object is
 * written on one line, it is written compactly, keeping the line. A lockfile built with {@link #of}
 * (or from {@link #EMPTY}) is written as {@code JSON.stringify(entries, null, 2)} and a newline.
 *
 * <p>A top-level member whose key is not a valid name, or whose value does not match the entry
 * schema, is {@linkplain #foreign() foreign}: it is not an entry, it keeps its bytes through every
 * change, and a change of its key is refused with {@link LockfileFormatException} ({@code foreign_entry}).
 *
 * <p>Two lockfiles are equal when they map the same names to equal entries, whatever the order and
 * the formatting (order and bytes are kept for writing, but they are not content); foreign members
 * do not count.
 *
 * <p>Work is done once, and only where needed. {@link #parse} checks every byte but decodes no
 * member: a member is decoded the first time its entry is read ({@link #entry}, {@link #contains},
 * a change of its name); what sees every entry ({@link #entries()}, {@link #names()}, {@link
 * #size()}, {@link #foreign()}, equality) decodes every member, once. {@link #bytes()} copies the
 * untouched runs of the parsed bytes whole, so a change of one entry of a big lockfile costs that
 * entry and one copy of the bytes. A lockfile built with {@link #of} formats its entries when its
 * bytes are first asked for.
 */
public final class Lockfile {

  /** The largest lockfile Tierlock reads or writes, in bytes (16 MiB); a larger one is refused. */
  public static final int MAX_BYTES = 16 * 1024 * 1024;

  /** The lockfile with no entries; its bytes are {@code {}} and a newline. */
  public static final Lockfile EMPTY = new Lockfile(LockfileDocument.EMPTY);

  private final LockfileDocument document;

  private Lockfile(LockfileDocument document) {
    this.document = document;
  }

  /**
   * {@return a lockfile holding {@code entries}, in their iteration order, with no source bytes: it
   * is written as {@code JSON.stringify(entries, null, 2)} followed by a newline}
   *
   * @param entries the entries, names mapped to their entry
   */
  public static Lockfile of(Map<ExtensionName, LockfileEntry> entries) {
    return entries.isEmpty() ? EMPTY : new Lockfile(LockfileDocument.fresh(entries));
  }

  /**
   * Parses a lockfile, keeping its bytes (copied: later changes to {@code bytes} do not show).
   *
   * @param bytes the file's bytes, UTF-8, optionally starting with a byte order mark
   * @param source the file or object they came from, named in errors
   * @return the lockfile; members that are not valid entries are kept as {@linkplain #foreign()
   *     foreign}
   * @throws LockfileFormatException if the bytes are more than {@link LockfileCodec#MAX_BYTES}, not
   *     UTF-8, not JSON, not exactly one JSON object, or hold a duplicate member name at any depth;
   *     the message names {@code source} and the line and column of the problem
   */
  public static Lockfile parse(byte[] bytes, String source) {
    java.util.Objects.requireNonNull(source, "source");
    return new Lockfile(LockfileParser.parse(bytes, source));
  }

  /**
   * {@return the lockfile's bytes: exactly the parsed bytes when unchanged, otherwise those bytes
   * with the changed members rewritten; for a lockfile built with {@link #of}, {@code
   * JSON.stringify(entries, null, 2)} and a newline, UTF-8} A byte order mark read is kept. A new
   * array on every call.
   */
  public byte[] bytes() {
    return document.bytes();
  }

  /** {@return {@link #bytes()} decoded as UTF-8, without the byte order mark if the file has one} */
  public String text() {
    return document.text();
  }

  /**
   * {@return the foreign members, in file order: top-level members kept verbatim because their key is
   * not a valid name or their value does not match the entry schema (unmodifiable)}
   */
  public List<Foreign> foreign() {
    return document.foreign();
  }

  /** {@return every entry, in file order (unmodifiable)} Foreign members are not entries. */
  public Map<ExtensionName, LockfileEntry> entries() {
    return document.entries();
  }

  /** {@return the names, in file order (unmodifiable)} */
  public Set<ExtensionName> names() {
    return document.entries().keySet();
  }

  /**
   * {@return the entry of {@code name}, if present}
   *
   * @param name the entry's name
   */
  public Optional<LockfileEntry> entry(ExtensionName name) {
    java.util.Objects.requireNonNull(name, "name");
    return Optional.ofNullable(document.entry(name));
  }

  /** Returns whether a foreign member holds {@code name}'s key (no write may touch it); decodes at most that member. */
  boolean isForeign(ExtensionName name) {
    return document.isForeign(name);
  }

  /**
   * {@return whether {@code name} has an entry}
   *
   * @param name the name to look up
   */
  public boolean contains(ExtensionName name) {
    java.util.Objects.requireNonNull(name, "name");
    return document.entry(name) != null;
  }

  /** {@return the number of entries} */
  public int size() {
    return document.entries().size();
  }

  /** {@return whether there are no entries (there may still be foreign members)} */
  public boolean isEmpty() {
    return document.isEmpty();
  }

  /**
   * {@return this lockfile with {@code name} mapped to {@code entry}: in place when the name exists
   * (only the value's bytes rewritten), appended after the last member when it is new; this
   * lockfile, bytes unchanged, when the name already has an equal entry}
   *
   * @param name the entry's name
   * @param entry the entry it gets
   * @throws LockfileFormatException ({@code foreign_entry}) if {@code name} is the key of a foreign member
   */
  public Lockfile with(ExtensionName name, LockfileEntry entry) {
    java.util.Objects.requireNonNull(name, "name");
    java.util.Objects.requireNonNull(entry, "entry");
    LockfileDocument changed = document.with(name, entry);
    return changed == document ? this : new Lockfile(changed);
  }

  /**
   * {@return this lockfile without {@code name}: its member and one separating comma removed, every
   * other byte kept (an object left without members is written {@code {}}); this lockfile when it has
   * no such entry}
   *
   * @param name the entry to remove
   * @throws LockfileFormatException ({@code foreign_entry}) if {@code name} is the key of a foreign member
   */
  public Lockfile without(ExtensionName name) {
    java.util.Objects.requireNonNull(name, "name");
    LockfileDocument changed = document.without(name);
    return changed == document ? this : new Lockfile(changed);
  }

  /**
   * {@return a lockfile holding only the entries of {@code keep} that this lockfile has, in this
   * lockfile's order} It is a new lockfile, as {@link #of} builds: it has no source bytes and no
   * foreign members.
   *
   * @param keep the names to keep
   */
  public Lockfile restrictedTo(Set<ExtensionName> keep) {
    java.util.Objects.requireNonNull(keep, "keep");
    Map<ExtensionName, LockfileEntry> copy = new LinkedHashMap<>();
    for (ExtensionName name : inFileOrder(keep)) {
      copy.put(name, java.util.Objects.requireNonNull(document.entry(name)));
    }
    return of(copy);
  }

  /**
   * Returns the names of {@code names} that have an entry here, in file order; decodes only their
   * members.
   */
  List<ExtensionName> inFileOrder(java.util.Collection<ExtensionName> names) {
    List<ExtensionName> present = new java.util.ArrayList<>(names.size());
    for (ExtensionName name : names) {
      if (document.entry(name) != null) {
        present.add(name);
      }
    }
    present.sort(java.util.Comparator.comparingInt(n -> document.position(n.value())));
    return present;
  }

  /** Returns the document holding this lockfile's bytes. */
  LockfileDocument document() {
    return document;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof Lockfile other && other.document.entries().equals(document.entries());
  }

  @Override
  public int hashCode() {
    return document.entries().hashCode();
  }

  @Override
  public String toString() {
    return "Lockfile" + document.entries() + (document.foreign().isEmpty() ? "" : " foreign" + document.foreign());
  }

  /**
   * A top-level member kept verbatim because it is not a valid entry. Immutable.
   *
   * @param name the member's key, as decoded from the file
   * @param reason why it is not an entry, one line naming the field at fault
   * @param json the member's value, exactly as written in the file
   */
  public record Foreign(String name, String reason, String json) {}
}
