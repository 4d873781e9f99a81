package dev.tierlock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The rule of {@link CommitMode#AUTO} and what a checkout keeps for it.
 *
 * <p><b>The rule</b> is read from the lockfile's head, not kept anywhere: every Tierlock write
 * carries its commit id and its parent's lineage, and a write of another tool carries neither, so
 * the lineage of a version counts the Tierlock versions since the last version without them (or
 * since the lockfile was created), as far as the store's metadata reaches. A batch runs optimistic
 * when the head it starts from has at least {@code trustAfter} commit ids in its lineage (capped by
 * what the store's metadata holds), else locked. Every checkout and process that sees the same head
 * decides the same way, a new process included, and a foreign version that a peer has already
 * written over is still seen in the peer's shorter lineage.
 *
 * <p><b>What the checkout keeps</b>: its own commits acknowledged without the lease in the last
 * {@link #WINDOW} (at most {@link #WINDOW_COMMITS}), in memory. A foreign writer trusts the lease
 * alone, so one that read the lockfile before such a commit landed and wrote after it reverted it.
 * When this checkout first sees a head it does not trust, {@link #reverted} returns, per name, the
 * value its latest commit of that name set wherever the foreign head holds a value that one of those
 * commits replaced (the foreign write did not change the name itself, it overwrote it with what it
 * had read); the batch re-applies them under the lease and warns. Thread-safe.
 */
final class AutoMode {

  /** How many consecutive Tierlock versions make a head trusted again, when not configured. */
  static final int DEFAULT_TRUST_AFTER = 8;

  /** How long an acknowledged optimistic commit is kept to be re-applied after a foreign overwrite. */
  static final Duration WINDOW = Duration.ofMinutes(10);

  /** The most acknowledged commits kept. */
  static final int WINDOW_COMMITS = 64;

  /** One acknowledged commit: each name's entry before and after it. */
  private record Acked(Instant at, Map<ExtensionName, Optional<LockfileEntry>> before,
      Map<ExtensionName, Optional<LockfileEntry>> after) {}

  private final int trustAfter;
  private final ArrayDeque<Acked> recent = new ArrayDeque<>();

  /**
   * Creates the rule.
   *
   * @param trustAfter the consecutive Tierlock versions that make a head trusted
   * @throws IllegalArgumentException if {@code trustAfter} is below 1
   */
  AutoMode(int trustAfter) {
    if (trustAfter < 1) {
      throw new IllegalArgumentException("Cannot trust a lockfile after " + trustAfter + " versions: at least 1");
    }
    this.trustAfter = trustAfter;
  }

  /** Returns the consecutive Tierlock versions that make a head trusted. */
  int trustAfter() {
    return trustAfter;
  }

  /**
   * Returns whether a batch starting from {@code head} may run without the lease: its lineage holds
   * at least {@link #trustAfter()} commit ids (gaps not counted), or as many as {@code capacity}
   * bytes of metadata keep.
   * An absent lockfile is not trusted (the original tool creates it unconditionally too).
   */
  boolean trusts(@Nullable LockfileHead head, int capacity) {
    if (head == null || head.lineage().isEmpty()) {
      return false;
    }
    int room = LockfileHead.lineageLength(capacity, head.lineage().get(0).length());
    // a gap (a warm write on a repeated version, LockfileHead.GAP) is not a version: only ids count
    long ids = head.lineage().stream().filter(id -> !LockfileHead.GAP.equals(id)).count();
    return ids >= Math.min(trustAfter, Math.max(1, room));
  }

  /** Keeps a commit acknowledged without the lease at {@code at}: {@code names} went from {@code before} to {@code after}. */
  synchronized void acknowledged(Lockfile before, Lockfile after, Set<ExtensionName> names, Instant at) {
    if (names.isEmpty()) {
      return;
    }
    Map<ExtensionName, Optional<LockfileEntry>> was = new LinkedHashMap<>();
    Map<ExtensionName, Optional<LockfileEntry>> now = new LinkedHashMap<>();
    for (ExtensionName name : names) {
      was.put(name, before.entry(name));
      now.put(name, after.entry(name));
    }
    recent.addLast(new Acked(at, was, now));
    trim(at);
  }

  /**
   * Returns what to write again after a first look at an untrusted head whose content is {@code
   * foreign}: for each name a kept commit changed, its latest value, where {@code foreign} holds a
   * value one of the kept commits replaced; forgets every kept commit (they are judged once).
   *
   * @param now the time, to drop commits older than the window
   * @return the names to re-apply and their values, in the order the commits were acknowledged
   */
  synchronized LockfileDelta reverted(Lockfile foreign, Instant now) {
    trim(now);
    Map<ExtensionName, Optional<LockfileEntry>> latest = new LinkedHashMap<>();
    Map<ExtensionName, Set<Optional<LockfileEntry>>> replaced = new LinkedHashMap<>();
    for (Acked acked : recent) {
      acked.after().forEach(latest::put);
      acked.before().forEach((name, value) -> replaced.computeIfAbsent(name, n -> new HashSet<>()).add(value));
    }
    recent.clear();
    LockfileDelta out = LockfileDelta.EMPTY;
    for (Map.Entry<ExtensionName, Optional<LockfileEntry>> e : latest.entrySet()) {
      Optional<LockfileEntry> there = foreign.entry(e.getKey());
      if (!there.equals(e.getValue()) && replaced.get(e.getKey()).contains(there)) {
        ExtensionName name = e.getKey();
        out = out.then(e.getValue().map(entry -> LockfileDelta.upsert(name, entry))
            .orElseGet(() -> LockfileDelta.removal(name)));
      }
    }
    return out;
  }

  /** Returns whether any acknowledged commit is kept. */
  synchronized boolean keepsAny() {
    return !recent.isEmpty();
  }

  private void trim(Instant now) {
    Instant oldest = now.minus(WINDOW);
    while (!recent.isEmpty() && (recent.size() > WINDOW_COMMITS || recent.peekFirst().at().isBefore(oldest))) {
      recent.removeFirst();
    }
  }
}
