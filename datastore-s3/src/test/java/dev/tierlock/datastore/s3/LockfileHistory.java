package dev.tierlock.datastore.s3;

import dev.tierlock.TransactionStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Checks the lockfiles a server stored, in its order, against the changes peer processes were
 * told had landed: the commit order is the server's, and every stored lockfile must be its
 * predecessor plus exactly one acknowledged change. Pure; thread-safe.
 */
final class LockfileHistory {

  /**
   * One lockfile the server stored.
   *
   * @param commitId the commit id in its metadata
   * @param versions each entry's version by name
   */
  record Publication(String commitId, Map<String, String> versions) {
    Publication {
      versions = Map.copyOf(versions);
    }
  }

  private LockfileHistory() {}

  /**
   * Returns every way the history breaks the rules, empty when it keeps them all:
   *
   * <ul>
   *   <li>the first publication is the seed, exactly;
   *   <li>every later one carries a commit id of exactly one acknowledged change, and differs from
   *       its predecessor by exactly that change and nothing else (so no publication drops, reverts
   *       or invents a peer's entry);
   *   <li>every change acknowledged as {@link TransactionStatus#PUBLISHED} was published exactly once;
   *       only a removal may be {@link TransactionStatus#NO_CHANGE} (its name was already gone); no
   *       change was deferred;
   *   <li>each process's changes were published in the order it made them, numbered 1 to n;
   *   <li>the shared lockfile at the end is the last publication.
   * </ul>
   */
  static List<String> problems(Map<String, String> seed, List<Publication> publications,
      List<AcknowledgedChange> acknowledged, Map<String, String> sharedAtTheEnd) {
    List<String> problems = new ArrayList<>();
    Map<String, AcknowledgedChange> byCommitId = new HashMap<>();
    for (AcknowledgedChange change : acknowledged) {
      change.commitIds().forEach(id -> byCommitId.put(id, change));
    }
    if (publications.isEmpty() || !publications.get(0).versions().equals(seed)) {
      problems.add("the first stored lockfile is not the seed " + seed);
    }
    Map<AcknowledgedChange, Integer> publishedAt = new HashMap<>();
    Map<String, String> state = new LinkedHashMap<>(publications.isEmpty() ? seed : publications.get(0).versions());
    for (int i = 1; i < publications.size(); i++) {
      Publication publication = publications.get(i);
      AcknowledgedChange change = byCommitId.get(publication.commitId());
      if (change == null) {
        problems.add("stored lockfile #" + i + " (commit " + publication.commitId() + ") is no acknowledged change: "
            + difference(state, publication.versions()));
      } else if (publishedAt.putIfAbsent(change, i) != null) {
        problems.add("stored lockfile #" + i + " publishes " + change.shortForm() + " a second time");
      } else {
        Map<String, String> expected = applied(state, change);
        if (!expected.equals(publication.versions())) {
          problems.add("stored lockfile #" + i + " should be its predecessor with only " + change.shortForm()
              + ", but differs from that by " + difference(expected, publication.versions()));
        }
      }
      state = new LinkedHashMap<>(publication.versions());
    }
    checkAcknowledged(acknowledged, publishedAt, problems);
    if (!state.equals(sharedAtTheEnd)) {
      problems.add("the shared lockfile at the end differs from the last stored one by "
          + difference(state, sharedAtTheEnd));
    }
    return problems;
  }

  /**
   * Returns the lockfile the acknowledged changes make when applied to {@code seed} in the order the
   * server stored their publications, without looking at what the publications hold: what the
   * shared lockfile must be if no acknowledged change was lost. Publications of no acknowledged
   * change are skipped ({@link #problems} reports them).
   */
  static Map<String, String> replay(Map<String, String> seed, List<Publication> publications,
      List<AcknowledgedChange> acknowledged) {
    Map<String, AcknowledgedChange> byCommitId = new HashMap<>();
    for (AcknowledgedChange change : acknowledged) {
      change.commitIds().forEach(id -> byCommitId.put(id, change));
    }
    Map<String, String> state = new LinkedHashMap<>(seed);
    for (Publication publication : publications.subList(Math.min(1, publications.size()), publications.size())) {
      AcknowledgedChange change = byCommitId.get(publication.commitId());
      if (change != null) {
        state = applied(state, change);
      }
    }
    return state;
  }

  private static void checkAcknowledged(List<AcknowledgedChange> acknowledged,
      Map<AcknowledgedChange, Integer> publishedAt, List<String> problems) {
    Map<String, Integer> lastIndex = new HashMap<>();
    Map<String, Integer> lastSequence = new HashMap<>();
    for (AcknowledgedChange change : acknowledged) {
      int expectedSequence = lastSequence.getOrDefault(change.process(), 0) + 1;
      if (change.sequence() != expectedSequence) {
        problems.add(change.process() + " logged change #" + change.sequence() + " where #" + expectedSequence
            + " was due");
      }
      lastSequence.put(change.process(), change.sequence());
      Integer at = publishedAt.get(change);
      switch (change.status()) {
        case PUBLISHED -> {
          if (at == null) {
            problems.add("acknowledged change " + change.shortForm() + " is in no stored lockfile");
          } else {
            Integer previous = lastIndex.put(change.process(), at);
            if (previous != null && previous > at) {
              problems.add(change.shortForm() + " was stored (#" + at + ") before the change " + change.process()
                  + " made earlier (#" + previous + ")");
            }
          }
        }
        case NO_CHANGE -> {
          if (change.operation() != AcknowledgedChange.Operation.REMOVE || at != null) {
            problems.add(change.shortForm() + " reported no change, which only a removal of a missing name may");
          }
        }
        case DEFERRED -> problems.add(change.shortForm() + " was deferred, not published");
      }
    }
  }

  private static Map<String, String> applied(Map<String, String> state, AcknowledgedChange change) {
    Map<String, String> next = new LinkedHashMap<>(state);
    if (change.operation() == AcknowledgedChange.Operation.PUT) {
      next.put(change.name(), change.version());
    } else {
      next.remove(change.name());
    }
    return next;
  }

  /** Describes how {@code actual} differs from {@code expected}, name by name. */
  static String difference(Map<String, String> expected, Map<String, String> actual) {
    TreeSet<String> names = new TreeSet<>(expected.keySet());
    names.addAll(actual.keySet());
    List<String> parts = new ArrayList<>();
    for (String name : names) {
      String was = expected.get(name);
      String is = actual.get(name);
      if (!Objects.equals(was, is)) {
        parts.add(name + ": " + (was == null ? "(absent)" : was) + " -> " + (is == null ? "(absent)" : is));
      }
    }
    return parts.isEmpty() ? "nothing" : String.join(", ", parts);
  }
}
