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
 *   <li><b>Every write</b> is judged against the very send that landed ({@link Send}, captured as
 *       the request left the writer's stack): the pending record as it was when that request was
 *       sent names its commit id, and the write's bytes are the previous version's bytes with that
 *       record's delta applied (so nothing of anyone else is lost or rewritten, and bytes nobody
 *       meant to change do not change). A write that lands while it is being sent is, in addition,
 *       what the record names now, and each name it changes is the writer's latest edit of that
 *       name. The value it overwrites is the value that edit's base held (so no write reverts a
 *       change its writer never saw), or one the writer itself set by a late write (below).
 *   <li><b>A late write</b> (held back in the network and delivered after its writer's record moved
 *       on to another commit, or was cleared) sets each name to the edit the writer had outstanding
 *       when it sent it. That may be an edit the writer has since superseded: then the writer's
 *       latest acknowledged edit of that name is outstanding again from that moment (even if it had
 *       been settled): it must land after it, be seen after it, or be dropped for a real conflict;
 *       a writer that never repairs it has lost it. A late write that reverts the writer's own newer
 *       edit after it landed is a failure. The one drop allowed without another checkout's change
 *       is a reported one whose kept value is the writer's own late write, which its record no
 *       longer tracked ({@link #STRICT_OWN_LATE_DROPS} fails it too).
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
    /**
     * The index of a version in which a late write of this checkout set the name to a value it had
     * superseded by this edit: the edit is settled only by what happens after it.
     */
    int notBefore = -1;
    /** Made by a run that died before it recorded it: never acknowledged. */
    boolean unacknowledged;

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
          + base + (landedAt == null ? "" : ", landed at " + landedAt)
          + (notBefore < 0 ? "" : ", undone by its writer's late write at " + notBefore) + "]";
    }
  }

  /**
   * One lockfile write request as it left its writer's stack, captured before it reached the store
   * (whether it reaches it then, later, or never).
   */
  static final class Send {
    final int checkout;
    final String commitId;
    /** The writer's pending record when it sent the request (the record is written before every send). */
    final @Nullable PendingChange record;
    /** The writer's outstanding edits when it sent the request. */
    final Map<String, Edit> edits;
    /** Whether the request was held back in the network, to be delivered later. */
    boolean delayed;

    Send(int checkout, String commitId, @Nullable PendingChange record, Map<String, Edit> edits) {
      this.checkout = checkout;
      this.commitId = commitId;
      this.record = record;
      this.edits = edits;
    }

    @Override
    public String toString() {
      return "send[c" + checkout + " " + commitId + (delayed ? " held back" : "") + ", record " + record + "]";
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
  /**
   * Per checkout, the names its last change touched but left as it found them, as edits of that
   * value: an optimistic checkout checks them too (its view may be stale), and may report a
   * conflict on one when a peer really changed it since.
   */
  private final List<Map<String, Edit>> checked = new ArrayList<>();
  /**
   * Names a run that died dropped, per checkout, each with how many of its edits were dropped: a
   * later run of that checkout must report each of them (two edits of one name, made by two runs
   * and dropped for two peers' changes, are two reports).
   */
  private final List<Map<String, Integer>> awaitingReport = new ArrayList<>();
  /** Names of superseded edits a dead run may or may not have dropped: a report is allowed, not required. */
  private final List<java.util.Set<String>> lenientReport = new ArrayList<>();
  /** Names whose drop was reported, per checkout: a repeated report of them is allowed. */
  private final List<java.util.Set<String>> reported = new ArrayList<>();
  /** Every edit each checkout made, per name, oldest first. */
  private final List<Map<String, List<Edit>>> made = new ArrayList<>();
  /** The versions in which a late write of each checkout set a name to a value it had superseded: "index:name". */
  private final List<java.util.Set<String>> lateSuperseded = new ArrayList<>();
  private final String scenario;
  private long nextId;
  private long unreportedDrops;
  private @Nullable Send sending;
  private long lateLandings;
  private long supersededLandings;
  private long toldOwnLateDrops;

  TransactionModel(HistoryRecorder recorder, int checkouts, IntFunction<Optional<PendingChange>> pending,
      String scenario) {
    this.recorder = recorder;
    this.pending = pending;
    this.scenario = scenario;
    for (int i = 0; i < checkouts; i++) {
      outstanding.add(new LinkedHashMap<>());
      superseded.add(new HashMap<>());
      checked.add(new HashMap<>());
      awaitingReport.add(new HashMap<>());
      lenientReport.add(new java.util.HashSet<>());
      reported.add(new java.util.HashSet<>());
      made.add(new HashMap<>());
      lateSuperseded.add(new java.util.HashSet<>());
    }
  }

  /** Captures a lockfile write request of checkout {@code c} with commit id {@code commitId}, as it is sent. */
  Send sending(int c, String commitId) {
    return new Send(c, commitId, pending.apply(c).orElse(null), Map.copyOf(outstanding.get(c)));
  }

  /** Makes {@code call}, the delivery of {@code send} to the store; a write that lands meanwhile is that send. */
  <T> T through(Send send, java.util.function.Supplier<T> call) {
    Send outer = sending;
    sending = send;
    try {
      return call.get();
    } finally {
      sending = outer;
    }
  }

  /**
   * Whether {@code send}, landing on the version at {@code index}, would land after its writer undid
   * a value it carries: an acknowledged edit of a name it carries, made after the one it carried,
   * sets the name back to the value the version at {@code index} has (so that later change, made on
   * that version, did not change the name at all, and a change left with nothing else to publish
   * cleared the record). {@link UndoneInDoubtWriteTest} reproduces what the product then does:
   * nothing takes the value out again, or a later edit of the name is dropped as a conflict with
   * another checkout that was its own write.
   */
  boolean undoes(Send send, int index) {
    if (send.record == null) {
      return false;
    }
    for (ExtensionName n : send.record.delta().names()) {
      Edit carried = send.edits.get(n.value());
      for (Edit later : made.get(send.checkout).getOrDefault(n.value(), List.of())) {
        if (carried != null && later.id > carried.id && !later.unacknowledged
            && Objects.equals(later.target, valueAt(index, n.value()))) {
          return true;
        }
      }
    }
    return false;
  }

  /** Returns how many late writes landed after their writer's record had moved on. */
  long lateLandings() {
    return lateLandings;
  }

  /** Returns how many names late writes set to a value their writer had superseded. */
  long supersededLandings() {
    return supersededLandings;
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
    checked.get(c).clear();
    for (Map.Entry<String, Optional<String>> e : after.entrySet()) {
      String name = e.getKey();
      if (e.getValue().equals(before.get(name))) {
        checked.get(c).put(name, new Edit(-1, c, name, e.getValue().orElse(null), base));
        continue;
      }
      Edit edit = new Edit(nextId++, c, name, e.getValue().orElse(null), base);
      made.get(c).computeIfAbsent(name, k -> new ArrayList<>()).add(edit);
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
    Send send = sending;
    if (send == null || send.checkout != c || !send.commitId.equals(version.commitId())) {
      fail("Write %s of commit %s by c%s reached the store outside any send of it (%s), in %s", version.index(),
          version.commitId(), c, send, scenario);
      return;
    }
    PendingChange sent = send.record;
    if (sent == null || !sent.commitId().equals(Optional.of(version.commitId()))) {
      fail("Write of commit %s by c%s is not what its pending record named when it was sent (%s), in %s",
          version.commitId(), c, sent, scenario);
      return;
    }
    PendingChange record = pending.apply(c).orElse(null);
    // a request held back is late once the record moved on: to another commit, or to another delta
    // (a record with no write in flight names its latest prior)
    boolean late = send.delayed && (record == null || !record.commitId().equals(Optional.of(version.commitId()))
        || !record.delta().equals(sent.delta()));
    if (!late && (record == null || !record.commitId().equals(Optional.of(version.commitId()))
        || !record.delta().equals(sent.delta()))) {
      fail("Write of commit %s by c%s is not what its pending record names (%s; when it was sent: %s), in %s",
          version.commitId(), c, record, sent, scenario);
      return;
    }
    if (late) {
      lateLandings++;
    }
    int previousIndex = version.index() - 1;
    Lockfile previous = recorder.version(previousIndex).lockfile();
    LockfileDelta delta = sent.delta();
    byte[] expected = delta.applyTo(previous).bytes();
    if (!Arrays.equals(expected, version.bytes())) {
      fail("Write %s by c%s is not the previous version plus its record's delta %s:%n  expected %s%n  written  %s%nin %s",
          version.index(), c, PendingChange.class.getSimpleName() + delta, text(expected), text(version.bytes()), scenario);
    }
    for (ExtensionName n : delta.names()) {
      String name = n.value();
      String target = delta.target(n).map(LockfileEntry::version).orElse(null);
      Edit edit = (late ? send.edits : outstanding.get(c)).get(name);
      if ((edit == null || !Objects.equals(edit.target, target)) && Objects.equals(value(previous, name), target)) {
        continue; // carried at the value the version has (a name checked, not changed): it changes nothing
      }
      if (edit == null || !Objects.equals(edit.target, target)) {
        fail("Write %s by c%s sets %s to %s, which is not its latest edit of it (%s)%s, in %s", version.index(), c, name,
            target, edit, late ? " when it sent this late write" : "", scenario);
        return;
      }
      String overwritten = value(previous, name);
      // it may overwrite what its edit's base held or, for an edit its writer's late write undid, what
      // that late write set (the writer rebases from it); either may have come back (a removal)
      if (!Objects.equals(overwritten, target) && !Objects.equals(overwritten, valueAt(edit.base, name))
          && !(edit.notBefore >= 0 && Objects.equals(overwritten, valueAt(edit.notBefore, name)))
          && !setLateByItsWriter(c, name, previousIndex)) {
        fail("Write %s by c%s reverts %s: it overwrites %s, but %s was made on version %s, where %s was %s; in %s",
            version.index(), c, name, overwritten, edit, edit.base, name, valueAt(edit.base, name), scenario);
      }
      Edit latest = late ? latestAcknowledged(c, name) : edit;
      if (latest != null && latest != edit && Objects.equals(latest.target, target)) {
        edit = latest; // an older edit of the same value: the late write sets what the writer wants now
      }
      if (latest != edit && !Objects.equals(overwritten, target)) {
        undoneByALateWrite(c, name, edit, latest, version);
        continue;
      }
      if (edit.landedAt == null && edit.notBefore < version.index()) {
        edit.landedAt = version.index();
      }
    }
  }

  /**
   * A late write of checkout {@code c} set {@code name} to {@code old}'s target, which {@code
   * latest} had superseded: {@code latest} is outstanding again from {@code version} on.
   */
  private void undoneByALateWrite(int c, String name, Edit old, @Nullable Edit latest, HistoryRecorder.Version version) {
    supersededLandings++;
    lateSuperseded.get(c).add(version.index() + ":" + name);
    if (latest == null) {
      fail("Late write %s by c%s sets %s back to %s (%s), superseding no edit: in %s", version.index(), c, name,
          old.target, old, scenario);
      return;
    }
    if (latest.landedAt != null && outstanding.get(c).get(name) == latest) {
      fail("Late write %s by c%s sets %s back to %s (%s), reverting its own newer edit %s after it landed; history %s;"
          + " in %s", version.index(), c, name, old.target, old, latest, describeHistory(), scenario);
    }
    latest.landedAt = null;
    latest.notBefore = version.index();
    outstanding.get(c).put(name, latest);
  }

  /** Returns the last edit of {@code name} checkout {@code c} made and had acknowledged, or null. */
  private @Nullable Edit latestAcknowledged(int c, String name) {
    List<Edit> edits = made.get(c).getOrDefault(name, List.of());
    for (int i = edits.size() - 1; i >= 0; i--) {
      if (!edits.get(i).unacknowledged) {
        return edits.get(i);
      }
    }
    return null;
  }

  /** Whether {@code name}'s value at version {@code index} was set by a late write of {@code c} to a superseded value. */
  private boolean setLateByItsWriter(int c, String name, int index) {
    for (int i = index; i > 0; i--) {
      if (!Objects.equals(valueAt(i, name), valueAt(i - 1, name))) {
        return lateSuperseded.get(c).contains(i + ":" + name);
      }
    }
    return false;
  }

  /**
   * Settles the outstanding edits of checkout {@code c} after one of its runs ended; {@code runEdits}
   * are the ids from which this run's edits were numbered, and {@code readMark} where its reads began.
   */
  void runEnded(int c, Ending ending, long runEdits, int readMark) {
    int now = recorder.current();
    List<Integer> seen = recorder.readsOf(c, readMark);
    Map<String, Edit> open = outstanding.get(c);
    PendingChange record = pending.apply(c).orElse(null);
    LockfileDelta held = record == null ? LockfileDelta.EMPTY : record.delta();
    for (String name : ending.droppedByWarning()) {
      Edit latest = open.get(name);
      if (latest != null && !superseded.get(c).containsKey(name) && ending.droppedByConflict().stream()
          .anyMatch(d -> d.name().equals(name) && Objects.equals(d.ours(), latest.target))) {
        // the conflict reports this name's latest edit; the warning is a record's notice of an
        // earlier edit of it, which a run that died dropped and superseded before its caller heard
        tell(c, name);
        reported.get(c).add(name);
        continue;
      }
      // a run that died may or may not have dropped a superseded edit of this name (a lenient
      // report, which a second warning may still be); a warning is that report only if it is not
      // about an edit of the name this run dropped
      Edit candidate = superseded.get(c).containsKey(name) ? superseded.get(c).get(name) : open.get(name);
      boolean forCandidate = lenientReport.get(c).contains(name) && candidate != null && !keeps(held, candidate)
          && peerChanged(candidate, seen);
      if (!forCandidate && tell(c, name)) {
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
      Edit probe = checked.get(c).get(dropped.name());
      if ((edit == null || !Objects.equals(edit.target, dropped.ours())) && probe != null
          && Objects.equals(probe.target, dropped.ours()) && peerChanged(probe, seen)) {
        // a name the change left as it found it, checked against a peer's newer value: told, not lost
        if (edit != null) {
          open.put(dropped.name(), edit);
        }
        continue;
      }
      if (edit == null || !Objects.equals(edit.target, dropped.ours())) {
        fail("c%s reported a conflict on %s (ours %s) that is not its outstanding edit %s, in %s", c, dropped.name(),
            dropped.ours(), edit, scenario);
        return;
      }
      justifyDrop(edit, seen, dropped, ending);
    }
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
        edit.unacknowledged = true;
        continue; // made by the run that died before it recorded the change: never acknowledged
      }
      if (edit.landedAt != null) {
        if (ending.crashed() && peerChanged(edit, seen)) {
          // the dead run's record no longer holds an edit that landed and a peer then changed: it
          // may have dropped it, not knowing it had landed (a write its record had let go of); the
          // notice it left may tell the next run so, which is allowed, not required
          await(c, edit.name);
          lenientReport.get(c).add(edit.name);
        }
        continue;
      }
      if (seen.stream().anyMatch(i -> i >= edit.base && i > edit.notBefore
          && Objects.equals(valueAt(i, edit.name), edit.target))) {
        continue; // a version this checkout read already had it
      }
      if (ending.crashed() && peerChanged(edit, seen)) {
        unreportedDrops++;
        await(c, edit.name);
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
          await(c, previous.name);
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
    if (!peerChanged(edit, seen) && keptItsOwnLateValue(edit, seen) && !STRICT_OWN_LATE_DROPS) {
      // told, though the value kept is the writer's own: a late write of it undid this edit after
      // its record had let go of that write (re-applied: ReapplyForgetsWriteInDoubtTest), or the
      // lineage no longer reached it when the record in doubt was re-applied
      toldOwnLateDrops++;
    } else if (!peerChanged(edit, seen)) {
      fail("c%s dropped %s, but no version it read shows another checkout changing %s since version %s (reads %s);"
          + " the run ended %s; history %s; in %s", edit.checkout, edit, edit.name, edit.base, seen, ending,
          describeHistory(), scenario);
    }
    if (conflict != null && seen.stream().noneMatch(i -> Objects.equals(valueAt(i, edit.name), conflict.theirs()))) {
      fail("c%s's conflict on %s names the other checkout's value %s, which no version it read holds (reads %s), in %s",
          edit.checkout, edit.name, conflict.theirs(), seen, scenario);
    }
  }

  /**
   * Whether a version in {@code seen}, at or after the late write of {@code edit}'s checkout that
   * undid {@code edit}, still holds the value that late write set.
   */
  private boolean keptItsOwnLateValue(Edit edit, List<Integer> seen) {
    return edit.notBefore >= 0 && seen.stream().anyMatch(i -> i >= edit.notBefore
        && setLateByItsWriter(edit.checkout, edit.name, i));
  }

  /**
   * Whether a drop the writer was told of, whose kept value is its own late write's, fails the
   * property too ({@code -Dtierlock.property.strictOwnLateDrops=true}): by default it is allowed
   * (the caller was told), and counted.
   */
  static final boolean STRICT_OWN_LATE_DROPS = Boolean.getBoolean("tierlock.property.strictOwnLateDrops");

  /** Returns how many drops the writer was told of whose kept value was its own late write's. */
  long toldOwnLateDrops() {
    return toldOwnLateDrops;
  }

  /** Whether {@code held} (a record's delta) keeps {@code edit}'s name at its target. */
  private static boolean keeps(LockfileDelta held, Edit edit) {
    ExtensionName n = ExtensionName.of(edit.name);
    return held.touches(n) && Objects.equals(held.target(n).map(LockfileEntry::version).orElse(null), edit.target);
  }

  /**
   * Whether a version in {@code seen} shows another checkout changing {@code edit}'s name since its
   * base, or, for an edit its writer's late write undid, since that write (whose value the writer
   * rebases from when its record still tracks it).
   */
  private boolean peerChanged(Edit edit, List<Integer> seen) {
    return peerChangedSince(edit, edit.base, seen) || edit.notBefore > edit.base
        && peerChangedSince(edit, edit.notBefore, seen);
  }

  private boolean peerChangedSince(Edit edit, int from, List<Integer> seen) {
    String base = valueAt(from, edit.name);
    for (int i : seen) {
      String there = valueAt(i, edit.name);
      if (i > from && !Objects.equals(there, base) && !Objects.equals(there, edit.target)
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

  /** Notes that a run of checkout {@code c} that died dropped one more edit of {@code name}. */
  private void await(int c, String name) {
    awaitingReport.get(c).merge(name, 1, Integer::sum);
  }

  /** Takes one awaited report of {@code name} by checkout {@code c}; returns whether one was awaited. */
  private boolean tell(int c, String name) {
    Integer left = awaitingReport.get(c).get(name);
    if (left == null) {
      return false;
    }
    if (left == 1) {
      awaitingReport.get(c).remove(name);
    } else {
      awaitingReport.get(c).put(name, left - 1);
    }
    return true;
  }

  /** Returns the names checkout {@code c} dropped in runs that died and has not reported since. */
  java.util.Set<String> awaitingReport(int c) {
    java.util.Set<String> required = new java.util.HashSet<>(awaitingReport.get(c).keySet());
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
