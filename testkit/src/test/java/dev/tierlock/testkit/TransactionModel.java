package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileDelta;
import dev.tierlock.LockfileEntry;
import dev.tierlock.PendingChange;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The oracle of {@link LockfileTransactionPropertyTest}: what each checkout asked for, checked
 * against the real history of the shared lockfile ({@link HistoryRecorder}).
 *
 * <p>An <b>edit</b> is what one run's change finally did to one name (every put writes a version
 * never used before, so a stored value names the edit that wrote it), with the history index of the
 * version the run fetched (its base). A checkout's <b>outstanding</b> edits are those it made and
 * has not yet seen settled; an edit it makes supersedes its own earlier one on that name.
 *
 * <ul>
 *   <li><b>Every write</b> is the writer's pending record, exactly: its commit id, and its bytes are
 *       the previous version's bytes with the record's delta applied (so nothing of anyone else is
 *       lost or rewritten, and bytes nobody meant to change do not change). Each name it changes is
 *       the writer's latest edit of that name, and the value it overwrites is the value that edit's
 *       base held (so no write reverts a change its writer never saw).
 *   <li><b>After every run</b>, whatever it returned or threw, each outstanding edit is held by the
 *       checkout's record with the same target, or it is settled: it landed, or the checkout read a
 *       version that already had it, or it was dropped (a warning of the run's result or of the
 *       exception it threw, a conflict it threw; or, for a run that died, silently: counted in
 *       {@link #unreportedDrops()}) and the checkout read a version in
 *       which another checkout had changed that name since the edit's base to something else.
 *       Anything else is a lost change. The record holds nothing the model did not ask for; a run
 *       that returned PUBLISHED or NO_CHANGE leaves no record.
 * </ul>
 *
 * <p>Not thread-safe: the property runs on one thread.
 */
final class TransactionModel {

  /** One edit: a checkout's final change to one name in one run. */
  static final class Edit {
    final long id;
    final int checkout;
    final String name;
    final @Nullable String target;
    final int base;
    @Nullable Integer landedAt;

    Edit(long id, int checkout, String name, @Nullable String target, int base) {
      this.id = id;
      this.checkout = checkout;
      this.name = name;
      this.target = target;
      this.base = base;
    }

    @Override
    public String toString() {
      return "edit#" + id + "[c" + checkout + " " + name + " -> " + (target == null ? "removed" : target) + " on version "
          + base + (landedAt == null ? "" : ", landed at " + landedAt) + "]";
    }
  }

  /**
   * How a run ended, as the oracle needs it.
   *
   * @param what a description
   * @param droppedByWarning the names its warnings say were dropped (the result's, or the exception's)
   * @param droppedByConflict the names its conflict dropped
   * @param crashed whether its process died (its own unrecorded edits were never acknowledged)
   * @param returned whether it returned a result (else its warnings, if any, reached only the log)
   */
  record Ending(String what, List<String> droppedByWarning, List<Dropped> droppedByConflict, boolean crashed,
      boolean returned) {}

  /** A name a conflict dropped: what the run wanted and what the other checkout published. */
  record Dropped(String name, @Nullable String ours, @Nullable String theirs) {}

  private final HistoryRecorder recorder;
  private final IntFunction<Optional<PendingChange>> pending;
  private final List<Map<String, Edit>> outstanding = new ArrayList<>();
  private final List<Map<String, Edit>> superseded = new ArrayList<>();
  /** Names a run that died dropped, per checkout: a later run of that checkout must report them. */
  private final List<java.util.Set<String>> awaitingReport = new ArrayList<>();
  /** Names of superseded edits a dead run may or may not have dropped: a report is allowed, not required. */
  private final List<java.util.Set<String>> lenientReport = new ArrayList<>();
  /** Names whose drop was reported, per checkout: a repeated report of them is allowed. */
  private final List<java.util.Set<String>> reported = new ArrayList<>();
  private final String scenario;
  private long nextId;
  private long unreportedDrops;

  TransactionModel(HistoryRecorder recorder, int checkouts, IntFunction<Optional<PendingChange>> pending,
      String scenario) {
    this.recorder = recorder;
    this.pending = pending;
    this.scenario = scenario;
    for (int i = 0; i < checkouts; i++) {
      outstanding.add(new LinkedHashMap<>());
      superseded.add(new HashMap<>());
      awaitingReport.add(new java.util.HashSet<>());
      lenientReport.add(new java.util.HashSet<>());
      reported.add(new java.util.HashSet<>());
    }
  }

  /** Returns the value of {@code name} in the version at {@code index}: its version string, or null when absent. */
  @Nullable String valueAt(int index, String name) {
    return value(recorder.version(index).lockfile(), name);
  }

  static @Nullable String value(Lockfile lockfile, String name) {
    return lockfile.entry(ExtensionName.of(name)).map(LockfileEntry::version).orElse(null);
  }

  /**
   * Starts what checkout {@code c} does in one run (its edits are recorded only once its change has
   * returned).
   *
   * @return the mark of the run's edits, for {@link #runEnded}
   */
  long runStarting(int c) {
    superseded.get(c).clear();
    return nextId;
  }

  /**
   * Records the edits a change of checkout {@code c} made, once it has returned: for each name it
   * touched, its value before the change and after; a name left as it was is no edit.
   */
  void changeReturned(int c, Map<String, Optional<String>> before, Map<String, Optional<String>> after, int base) {
    for (Map.Entry<String, Optional<String>> e : after.entrySet()) {
      String name = e.getKey();
      if (e.getValue().equals(before.get(name))) {
        continue;
      }
      Edit edit = new Edit(nextId++, c, name, e.getValue().orElse(null), base);
      Edit previous = outstanding.get(c).put(name, edit);
      if (previous != null) {
        superseded.get(c).put(name, previous);
      }
    }
  }

  /** Checks a write that landed, at the moment it lands (before the writer hears of it). */
  void landed(HistoryRecorder.Version version) {
    int c = version.writer();
    if (c < 0 || c >= outstanding.size()) {
      fail("Version %s was written by no checkout (commit %s) in %s", version.index(), version.commitId(), scenario);
    }
    PendingChange record = pending.apply(c).orElse(null);
    if (record == null || !record.commitId().equals(Optional.of(version.commitId()))) {
      fail("Write of commit %s by c%s is not what its pending record names (%s), in %s", version.commitId(), c, record,
          scenario);
      return;
    }
    Lockfile previous = recorder.version(version.index() - 1).lockfile();
    LockfileDelta delta = record.delta();
    byte[] expected = delta.applyTo(previous).bytes();
    if (!Arrays.equals(expected, version.bytes())) {
      fail("Write %s by c%s is not the previous version plus its record's delta %s:%n  expected %s%n  written  %s%nin %s",
          version.index(), c, PendingChange.class.getSimpleName() + delta, text(expected), text(version.bytes()), scenario);
    }
    for (ExtensionName n : delta.names()) {
      String name = n.value();
      String target = delta.target(n).map(LockfileEntry::version).orElse(null);
      Edit edit = outstanding.get(c).get(name);
      if (edit == null || !Objects.equals(edit.target, target)) {
        fail("Write %s by c%s sets %s to %s, which is not its latest edit of it (%s), in %s", version.index(), c, name,
            target, edit, scenario);
        return;
      }
      String overwritten = value(previous, name);
      if (!Objects.equals(overwritten, target) && !Objects.equals(overwritten, valueAt(edit.base, name))) {
        fail("Write %s by c%s reverts %s: it overwrites %s, but %s was made on version %s, where %s was %s; in %s",
            version.index(), c, name, overwritten, edit, edit.base, name, valueAt(edit.base, name), scenario);
      }
      if (edit.landedAt == null) {
        edit.landedAt = version.index();
      }
    }
  }

  /**
   * Settles the outstanding edits of checkout {@code c} after one of its runs ended; {@code runEdits}
   * are the ids from which this run's edits were numbered, and {@code readMark} where its reads began.
   */
  void runEnded(int c, Ending ending, long runEdits, int readMark) {
    int now = recorder.current();
    List<Integer> seen = recorder.readsOf(c, readMark);
    Map<String, Edit> open = outstanding.get(c);
    for (String name : ending.droppedByWarning()) {
      if (awaitingReport.get(c).remove(name)) {
        reported.get(c).add(name);
        continue; // told now, by the record a run that died left behind
      }
      Edit edit = superseded.get(c).containsKey(name) ? superseded.get(c).remove(name) : open.remove(name);
      if (edit == null) {
        if (reported.get(c).contains(name)) {
          continue; // told again: the record of a run that had told it was not rewritten in time
        }
        fail("c%s warned that it dropped a change to %s it never made (%s), in %s", c, name, ending, scenario);
        return;
      }
      justifyDrop(edit, seen, null, ending);
      reported.get(c).add(name);
    }
    for (Dropped dropped : ending.droppedByConflict()) {
      Edit edit = open.remove(dropped.name());
      if (edit == null || !Objects.equals(edit.target, dropped.ours())) {
        fail("c%s reported a conflict on %s (ours %s) that is not its outstanding edit %s, in %s", c, dropped.name(),
            dropped.ours(), edit, scenario);
        return;
      }
      justifyDrop(edit, seen, dropped, ending);
    }
    PendingChange record = pending.apply(c).orElse(null);
    LockfileDelta held = record == null ? LockfileDelta.EMPTY : record.delta();
    if (record != null && record.state() == PendingChange.State.UNREADABLE) {
      fail("c%s's pending record became unreadable (%s) after %s, in %s", c, record, ending, scenario);
    }
    for (Edit edit : new ArrayList<>(open.values())) {
      ExtensionName n = ExtensionName.of(edit.name);
      if (held.touches(n)) {
        String kept = held.target(n).map(LockfileEntry::version).orElse(null);
        if (!Objects.equals(kept, edit.target)) {
          fail("c%s's record keeps %s as %s, not as its latest edit %s, after %s, in %s", c, edit.name, kept, edit, ending,
              scenario);
        }
        continue;
      }
      open.remove(edit.name);
      if (ending.crashed() && edit.id >= runEdits) {
        continue; // made by the run that died before it recorded the change: never acknowledged
      }
      if (edit.landedAt != null) {
        continue;
      }
      if (seen.stream().anyMatch(i -> i >= edit.base && Objects.equals(valueAt(i, edit.name), edit.target))) {
        continue; // a version this checkout read already had it
      }
      if (ending.crashed() && peerChanged(edit, seen)) {
        unreportedDrops++;
        awaitingReport.get(c).add(edit.name);
        continue; // dropped for a real conflict by a run that died: the next run of this checkout must tell
      }
      fail("Change %s of c%s was lost: not in its record, never written, never seen in a version it read (%s), not"
          + " dropped for a conflict; the run ended %s; history %s; in %s", edit, c, seen, ending, describeHistory(),
          scenario);
    }
    for (ExtensionName n : held.names()) {
      if (!open.containsKey(n.value())) {
        fail("c%s's record holds a change to %s the model never made (%s), after %s, in %s", c, n, record, ending,
            scenario);
      }
    }
    if (ending.crashed()) {
      // an earlier edit this dead run replaced may have been dropped for a peer's change before it
      // died: the record it left must tell the next run (a superseded edit no run reported is moot:
      // the newer edit of the same name is what the checkout asked for last)
      for (Edit previous : superseded.get(c).values()) {
        if (peerChanged(previous, seen)) {
          awaitingReport.get(c).add(previous.name);
          lenientReport.get(c).add(previous.name);
        }
      }
    }
    superseded.get(c).clear();
    assertThat(now).isEqualTo(recorder.current());
  }

  /**
   * Requires a real reason for dropping {@code edit}: a version the checkout read in which {@code
   * edit.name} holds neither the edit's target nor its base's value, written by another checkout
   * after the base.
   */
  private void justifyDrop(Edit edit, List<Integer> seen, @Nullable Dropped conflict, Ending ending) {
    if (!peerChanged(edit, seen)) {
      fail("c%s dropped %s, but no version it read shows another checkout changing %s since version %s (reads %s);"
          + " the run ended %s; history %s; in %s", edit.checkout, edit, edit.name, edit.base, seen, ending,
          describeHistory(), scenario);
    }
    if (conflict != null && seen.stream().noneMatch(i -> Objects.equals(valueAt(i, edit.name), conflict.theirs()))) {
      fail("c%s's conflict on %s names the other checkout's value %s, which no version it read holds (reads %s), in %s",
          edit.checkout, edit.name, conflict.theirs(), seen, scenario);
    }
  }

  private boolean peerChanged(Edit edit, List<Integer> seen) {
    String base = valueAt(edit.base, edit.name);
    for (int i : seen) {
      String there = valueAt(i, edit.name);
      if (i > edit.base && !Objects.equals(there, base) && !Objects.equals(there, edit.target)
          && lastWriterOf(edit.name, i) != edit.checkout) {
        return true;
      }
    }
    return false;
  }

  /** Returns who last changed {@code name} at or before version {@code index} (-1 for the start). */
  private int lastWriterOf(String name, int index) {
    for (int i = index; i > 0; i--) {
      if (!Objects.equals(valueAt(i, name), valueAt(i - 1, name))) {
        return recorder.version(i).writer();
      }
    }
    return -1;
  }

  /** Returns the names checkout {@code c} dropped in runs that died and has not reported since. */
  java.util.Set<String> awaitingReport(int c) {
    java.util.Set<String> required = new java.util.HashSet<>(awaitingReport.get(c));
    required.removeAll(lenientReport.get(c));
    return java.util.Set.copyOf(required);
  }

  /** Returns how many changes were dropped, for a real conflict, by runs that died before they could say so. */
  long unreportedDrops() {
    return unreportedDrops;
  }

  /** Returns the edits checkout {@code c} still has outstanding. */
  List<Edit> outstanding(int c) {
    return List.copyOf(outstanding.get(c).values());
  }

  String describeHistory() {
    StringBuilder out = new StringBuilder();
    for (HistoryRecorder.Version v : recorder.history()) {
      Map<String, String> values = new LinkedHashMap<>();
      v.lockfile().entries().forEach((n, e) -> values.put(n.value(), e.version()));
      out.append("\n    #").append(v.index()).append(" c").append(v.writer()).append(' ').append(v.commitId()).append(' ')
          .append(values);
    }
    return out.toString();
  }

  private static String text(byte @Nullable [] bytes) {
    return bytes == null ? "(absent)" : new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
  }
}
