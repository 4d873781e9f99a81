package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The rebase rule, checked name by name against its definition: a change made on {@code base},
 * applied to {@code theirs}, keeps exactly the names whose value {@code theirs} still has as the
 * change found it, drops the names already there, and reports every other one as a conflict; so
 * applying what is kept never overwrites a value a peer wrote.
 */
class RebasePropertyTest {

  private static final List<ExtensionName> NAMES = List.of("@s/a", "@s/b", "@s/c", "@s/d", "@s/e").stream()
      .map(ExtensionName::of).toList();

  @Provide
  Arbitrary<Lockfile> lockfiles() {
    Arbitrary<Optional<LockfileEntry>> value = Arbitraries.of("1", "2", "3")
        .map(v -> LockfileEntry.builder(v, "2026-01-01T00:00:00.000Z").build()).optional(0.6);
    return value.list().ofSize(NAMES.size()).map(values -> {
      Map<ExtensionName, LockfileEntry> entries = new LinkedHashMap<>();
      for (int i = 0; i < NAMES.size(); i++) {
        int at = i;
        values.get(i).ifPresent(e -> entries.put(NAMES.get(at), e));
      }
      return Lockfile.of(entries);
    });
  }

  @Provide
  Arbitrary<LockfileDelta> deltas() {
    Arbitrary<Optional<Optional<LockfileEntry>>> edit = Arbitraries.of("1", "2", "3")
        .map(v -> LockfileEntry.builder(v, "2026-01-01T00:00:00.000Z").build()).optional(0.7).optional(0.6);
    return edit.list().ofSize(NAMES.size()).map(edits -> {
      Map<ExtensionName, LockfileEntry> upserts = new LinkedHashMap<>();
      TreeSet<ExtensionName> removals = new TreeSet<>();
      for (int i = 0; i < NAMES.size(); i++) {
        ExtensionName name = NAMES.get(i);
        edits.get(i).ifPresent(e -> e.ifPresentOrElse(v -> upserts.put(name, v), () -> removals.add(name)));
      }
      return new LockfileDelta(upserts, removals);
    });
  }

  @Property(tries = 2000)
  void keptAppliedToTheirs_neverRevertsAPeer(@ForAll("deltas") LockfileDelta delta, @ForAll("lockfiles") Lockfile base,
      @ForAll("lockfiles") Lockfile theirs) {
    Rebase rebase = Rebase.of(delta, base, theirs);
    Lockfile result = rebase.kept().applyTo(theirs);

    for (ExtensionName name : NAMES) {
      Optional<LockfileEntry> was = base.entry(name);
      Optional<LockfileEntry> now = theirs.entry(name);
      boolean touched = delta.touches(name);
      Optional<LockfileEntry> ours = delta.target(name);
      boolean conflict = rebase.conflicts().stream().anyMatch(c -> c.name().equals(name));
      if (!touched) {
        assertThat(result.entry(name)).isEqualTo(now);
      } else if (ours.equals(now)) {
        assertThat(rebase.alreadyThere()).contains(name);
        assertThat(result.entry(name)).isEqualTo(now);
      } else if (was.equals(now)) {
        assertThat(conflict).isFalse();
        assertThat(result.entry(name)).as("re-applied on an unchanged name").isEqualTo(ours);
      } else {
        assertThat(conflict).as("a peer changed %s", name).isTrue();
        assertThat(result.entry(name)).as("the peer's value is kept").isEqualTo(now);
      }
    }
  }

  @Property(tries = 500)
  void withoutABase_nothingThatDiffersIsReapplied(@ForAll("deltas") LockfileDelta delta,
      @ForAll("lockfiles") Lockfile theirs) {
    Lockfile result = Rebase.of(delta, null, theirs).kept().applyTo(theirs);

    assertThat(result).isEqualTo(theirs);
  }
}
