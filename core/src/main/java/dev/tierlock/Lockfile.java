package dev.tierlock;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The content of the shared lockfile: extension names mapped to their {@link LockfileEntry}, in
 * file order. Immutable and thread-safe; every change returns a new lockfile. {@link #with} keeps an
 * existing name's position and appends a new name; {@link #without} removes a name.
 *
 * <p>Two lockfiles are equal when they map the same names to equal entries, whatever the order
 * (order is kept for writing, but it is not content).
 */
public final class Lockfile {

  /** The lockfile with no entries. */
  public static final Lockfile EMPTY = new Lockfile(new LinkedHashMap<>());

  private final Map<ExtensionName, LockfileEntry> entries;

  private Lockfile(LinkedHashMap<ExtensionName, LockfileEntry> owned) {
    this.entries = Collections.unmodifiableMap(owned);
  }

  /** Returns a lockfile holding {@code entries}, in their iteration order. */
  public static Lockfile of(Map<ExtensionName, LockfileEntry> entries) {
    return entries.isEmpty() ? EMPTY : new Lockfile(new LinkedHashMap<>(entries));
  }

  /** Returns every entry, in file order (unmodifiable). */
  public Map<ExtensionName, LockfileEntry> entries() {
    return entries;
  }

  /** Returns the names, in file order (unmodifiable). */
  public Set<ExtensionName> names() {
    return entries.keySet();
  }

  /** Returns the entry of {@code name}, if present. */
  public Optional<LockfileEntry> entry(ExtensionName name) {
    return Optional.ofNullable(entries.get(name));
  }

  /** Returns whether {@code name} has an entry. */
  public boolean contains(ExtensionName name) {
    return entries.containsKey(name);
  }

  /** Returns the number of entries. */
  public int size() {
    return entries.size();
  }

  /** Returns whether there are no entries. */
  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /**
   * Returns this lockfile with {@code name} mapped to {@code entry}: in place when the name exists,
   * appended when it is new.
   */
  public Lockfile with(ExtensionName name, LockfileEntry entry) {
    LinkedHashMap<ExtensionName, LockfileEntry> copy = new LinkedHashMap<>(entries);
    copy.put(name, entry);
    return new Lockfile(copy);
  }

  /** Returns this lockfile without {@code name} (this lockfile when it has no such entry). */
  public Lockfile without(ExtensionName name) {
    if (!entries.containsKey(name)) {
      return this;
    }
    LinkedHashMap<ExtensionName, LockfileEntry> copy = new LinkedHashMap<>(entries);
    copy.remove(name);
    return new Lockfile(copy);
  }

  /** Returns a lockfile holding only the entries of {@code keep} that this lockfile has. */
  public Lockfile restrictedTo(Set<ExtensionName> keep) {
    LinkedHashMap<ExtensionName, LockfileEntry> copy = new LinkedHashMap<>();
    entries.forEach((name, entry) -> {
      if (keep.contains(name)) {
        copy.put(name, entry);
      }
    });
    return new Lockfile(copy);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof Lockfile other && other.entries.equals(entries);
  }

  @Override
  public int hashCode() {
    return entries.hashCode();
  }

  @Override
  public String toString() {
    return "Lockfile" + entries;
  }
}
