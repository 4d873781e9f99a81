package dev.tierlock;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Decides, name by name, whether a change made on one version of the shared lockfile still applies
 * to a newer one: a name the newer one already has as the change wants is done; a name the newer one
 * still has as the change found it is re-applied; a name someone else changed in between is a
 * conflict, never silently reverted, and so is a name the newer one holds as a foreign member
 * (which no write may touch). Stateless.
 *
 * @param kept the part of the change still to publish
 * @param alreadyThere names the newer lockfile already has as the change wants
 * @param conflicts names changed by someone else in between
 */
record Rebase(LockfileDelta kept, List<ExtensionName> alreadyThere, List<LockfileConflictException.Conflict> conflicts) {

  /**
   * Rebases {@code delta}, made on {@code base}, onto {@code theirs}.
   *
   * @param base the shared entries the change was made on, or {@code null} when unknown: then
   *     nothing can be re-applied safely (the newer value may be a peer's), so every name not
   *     already there is a conflict
   */
  static Rebase of(LockfileDelta delta, @Nullable Lockfile base, Lockfile theirs) {
    List<ExtensionName> done = new ArrayList<>();
    List<ExtensionName> dropped = new ArrayList<>();
    List<LockfileConflictException.Conflict> conflicts = new ArrayList<>();
    for (ExtensionName name : delta.names()) {
      LockfileEntry ours = delta.target(name).orElse(null);
      if (theirs.isForeign(name)) {
        conflicts.add(new LockfileConflictException.Conflict(name, ours, null));
        dropped.add(name);
        continue;
      }
      LockfileEntry now = theirs.entry(name).orElse(null);
      if (same(ours, now)) {
        done.add(name);
        dropped.add(name);
      } else if (base == null || !same(base.entry(name).orElse(null), now)) {
        conflicts.add(new LockfileConflictException.Conflict(name, ours, now));
        dropped.add(name);
      }
    }
    return new Rebase(delta.without(dropped), List.copyOf(done), List.copyOf(conflicts));
  }

  /** Returns the conflicts on names in {@code names}. */
  List<LockfileConflictException.Conflict> conflictsOn(Collection<ExtensionName> names) {
    return conflicts.stream().filter(c -> names.contains(c.name())).toList();
  }

  /** Returns the conflicts on names not in {@code names}. */
  List<LockfileConflictException.Conflict> conflictsOutside(Collection<ExtensionName> names) {
    return conflicts.stream().filter(c -> !names.contains(c.name())).toList();
  }

  private static boolean same(@Nullable LockfileEntry a, @Nullable LockfileEntry b) {
    return Optional.ofNullable(a).equals(Optional.ofNullable(b));
  }
}
