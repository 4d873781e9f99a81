package dev.tierlock;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A change to a lockfile: names to set ({@code upserts}, in the order they are appended) and names
 * to remove ({@code removals}, sorted). A name is in at most one of the two. Immutable and
 * thread-safe.
 *
 * <p>Laws: {@code diff(a, b).applyTo(a)} equals {@code b}; {@code x.then(y).applyTo(l)} equals
 * {@code y.applyTo(x.applyTo(l))}.
 *
 * @param upserts names mapped to the entry they get
 * @param removals names removed
 */
public record LockfileDelta(Map<ExtensionName, LockfileEntry> upserts, SortedSet<ExtensionName> removals) {

  /** The change that changes nothing. */
  public static final LockfileDelta EMPTY = new LockfileDelta(Map.of(), new TreeSet<>());

  /**
   * Validates and copies the parts.
   *
   * @param upserts names mapped to the entry they get
   * @param removals names removed
   * @throws IllegalArgumentException if a name is both upserted and removed
   */
  public LockfileDelta {
    upserts = Collections.unmodifiableMap(new LinkedHashMap<>(upserts));
    removals = Collections.unmodifiableSortedSet(new TreeSet<>(removals));
    for (ExtensionName name : removals) {
      if (upserts.containsKey(name)) {
        throw new IllegalArgumentException("Cannot build lockfile delta: " + name + " is both upserted and removed");
      }
    }
  }

  /**
   * {@return the change made of {@code upserts} and {@code removals}}
   *
   * @param upserts names mapped to the entry they get
   * @param removals names removed
   * @throws IllegalArgumentException if a name is in both
   */
  public static LockfileDelta of(Map<ExtensionName, LockfileEntry> upserts, Collection<ExtensionName> removals) {
    return new LockfileDelta(upserts, new TreeSet<>(removals));
  }

  /**
   * {@return the change that sets one entry}
   *
   * @param name the entry's name
   * @param entry the entry it gets
   */
  public static LockfileDelta upsert(ExtensionName name, LockfileEntry entry) {
    return new LockfileDelta(Map.of(name, entry), new TreeSet<>());
  }

  /**
   * {@return the change that removes one name}
   *
   * @param name the name to remove
   */
  public static LockfileDelta removal(ExtensionName name) {
    return new LockfileDelta(Map.of(), new TreeSet<>(Set.of(name)));
  }

  /**
   * {@return the change that turns {@code before} into {@code after}: names {@code after} lacks are
   * removed, names whose entry is new or differs in canonical JSON are upserted (in {@code
   * after}'s order)} Member order inside an entry and entry order are not changes.
   *
   * @param before the lockfile the change starts from
   * @param after the lockfile the change leads to
   */
  public static LockfileDelta diff(Lockfile before, Lockfile after) {
    Map<ExtensionName, LockfileEntry> upserts = new LinkedHashMap<>();
    after.entries().forEach((name, entry) -> {
      if (!before.entry(name).map(entry::equals).orElse(false)) {
        upserts.put(name, entry);
      }
    });
    SortedSet<ExtensionName> removals = new TreeSet<>();
    for (ExtensionName name : before.names()) {
      if (!after.contains(name)) {
        removals.add(name);
      }
    }
    return new LockfileDelta(upserts, removals);
  }

  /** {@return whether this change changes nothing} */
  public boolean isEmpty() {
    return upserts.isEmpty() && removals.isEmpty();
  }

  /** {@return every name this change touches: upserts in order, then removals (unmodifiable)} */
  public Set<ExtensionName> names() {
    Set<ExtensionName> names = new LinkedHashSet<>(upserts.keySet());
    names.addAll(removals);
    return Collections.unmodifiableSet(names);
  }

  /**
   * {@return whether this change touches {@code name}}
   *
   * @param name the name to look up
   */
  public boolean touches(ExtensionName name) {
    java.util.Objects.requireNonNull(name, "name");
    return upserts.containsKey(name) || removals.contains(name);
  }

  /**
   * {@return what this change leaves at {@code name}: the upserted entry, or empty when the name is
   * removed or not touched (see {@link #touches})}
   *
   * @param name the name to look up
   */
  public Optional<LockfileEntry> target(ExtensionName name) {
    java.util.Objects.requireNonNull(name, "name");
    return Optional.ofNullable(upserts.get(name));
  }

  /**
   * {@return {@code lockfile} with this change applied: removals first, then upserts} Only the
   * members of the names it touches are read or written ({@link Lockfile#with}, {@link
   * Lockfile#without}): nothing is parsed, and every other member keeps its bytes.
   *
   * @param lockfile the lockfile to change
   */
  public Lockfile applyTo(Lockfile lockfile) {
    java.util.Objects.requireNonNull(lockfile, "lockfile");
    Lockfile out = lockfile;
    for (ExtensionName name : removals) {
      out = out.without(name);
    }
    for (Map.Entry<ExtensionName, LockfileEntry> e : upserts.entrySet()) {
      out = out.with(e.getKey(), e.getValue());
    }
    return out;
  }

  /**
   * {@return this change followed by {@code later}: for each name the later change wins, and names
   * only this change touches keep this change's effect}
   *
   * @param later the change that follows this one
   */
  public LockfileDelta then(LockfileDelta later) {
    java.util.Objects.requireNonNull(later, "later");
    Map<ExtensionName, LockfileEntry> upserts = new LinkedHashMap<>(this.upserts);
    SortedSet<ExtensionName> removals = new TreeSet<>(this.removals);
    later.removals.forEach(name -> {
      upserts.remove(name);
      removals.add(name);
    });
    later.upserts.forEach((name, entry) -> {
      removals.remove(name);
      upserts.put(name, entry);
    });
    return new LockfileDelta(upserts, removals);
  }

  /**
   * {@return this change without any effect on the names in {@code drop}}
   *
   * @param drop the names to leave alone
   */
  public LockfileDelta without(Collection<ExtensionName> drop) {
    java.util.Objects.requireNonNull(drop, "drop");
    Map<ExtensionName, LockfileEntry> upserts = new LinkedHashMap<>(this.upserts);
    SortedSet<ExtensionName> removals = new TreeSet<>(this.removals);
    drop.forEach(name -> {
      upserts.remove(name);
      removals.remove(name);
    });
    return new LockfileDelta(upserts, removals);
  }

  /**
   * {@return this change restricted to the names in {@code keep}}
   *
   * @param keep the names to keep
   */
  public LockfileDelta restrictedTo(Collection<ExtensionName> keep) {
    java.util.Objects.requireNonNull(keep, "keep");
    Set<ExtensionName> dropped = new LinkedHashSet<>(names());
    dropped.removeAll(keep);
    return without(dropped);
  }
}
