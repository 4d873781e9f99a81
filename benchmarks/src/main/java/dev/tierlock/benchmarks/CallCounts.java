package dev.tierlock.benchmarks;

import dev.tierlock.CommitMode;
import dev.tierlock.ExtensionName;
import dev.tierlock.Tierlock;
import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.CountingDatastore;
import dev.tierlock.testkit.DatastoreOperation;
import dev.tierlock.testkit.FakeRemote;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Section 1: datastore calls per committed change, case by case, counted with the testkit's {@link
 * CountingDatastore} on a fake remote without latency, for each commit mode and for the baseline
 * and no-lock protocols.
 */
final class CallCounts {

  /** The cases, in report order. */
  enum Case {
    WARM("warm: the checkout wrote last"),
    COLD("cold: a new checkout's first change on an existing lockfile"),
    FIRST_CREATION("first creation: no lockfile yet"),
    AFTER_PEER("after a peer wrote"),
    REMOVE("a remove"),
    SELF_CHECK_NEW("self-check, new store (once per store)"),
    SELF_CHECK_KNOWN("self-check, store vouched for (a new checkout)");

    private final String label;

    Case(String label) {
      this.label = label;
    }

    String label() {
      return label;
    }
  }

  /** The calls of one case in one column, by operation. */
  record Count(Map<DatastoreOperation, Long> calls) {
    long total() {
      return calls.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /** The columns: every commit mode of {@link Protocol#MODES}, then the two upload protocols. */
  static final List<String> COLUMNS = java.util.stream.Stream.concat(Protocol.MODES.stream().map(Protocol::modeLabel),
      java.util.stream.Stream.of("baseline protocol", "no-lock protocol")).toList();

  private CallCounts() {}

  /** Returns, for each case in order, the count of each column in {@link #COLUMNS} order. */
  static Map<Case, List<Count>> measure(Path work) {
    Map<Case, List<Count>> table = new LinkedHashMap<>();
    for (Case c : Case.values()) {
      table.put(c, new ArrayList<>());
    }
    for (CommitMode mode : Protocol.MODES) {
      Map<Case, Count> column = tierlock(mode, work.resolve("calls-" + mode));
      table.forEach((c, row) -> row.add(column.get(c)));
    }
    for (Protocol upload : List.of(Protocol.BASELINE, Protocol.NO_LOCK)) {
      Map<Case, Count> column = upload(upload, work.resolve("calls-" + upload));
      table.forEach((c, row) -> row.add(column.get(c)));
    }
    return table;
  }

  private static Map<Case, Count> tierlock(CommitMode mode, Path work) {
    Map<Case, Count> counts = new EnumMap<>(Case.class);
    try (FakeRemote remote = FakeRemote.create(); CountingDatastore counting = CountingDatastore.wrap(remote);
        Tierlock a = open(counting, work.resolve("a"), mode);
        Tierlock peer = open(remote, work.resolve("peer"), mode);
        Tierlock c = open(counting, work.resolve("c"), mode)) {
      TierlockCommitter writer = new TierlockCommitter(a);
      counts.put(Case.SELF_CHECK_NEW, counted(counting, a::checkDatastore));
      counts.put(Case.FIRST_CREATION, counted(counting, () -> writer.put(name("a1"), Fixtures.plainEntry("1.0.0"))));
      counts.put(Case.WARM, counted(counting, () -> writer.put(name("a2"), Fixtures.plainEntry("1.0.0"))));
      peer.checkDatastore();
      new TierlockCommitter(peer).put(name("p1"), Fixtures.plainEntry("1.0.0"));
      counts.put(Case.AFTER_PEER, counted(counting, () -> writer.put(name("a3"), Fixtures.plainEntry("1.0.0"))));
      counts.put(Case.REMOVE, counted(counting, () -> writer.remove(name("a1"))));
      counts.put(Case.SELF_CHECK_KNOWN, counted(counting, c::checkDatastore));
      TierlockCommitter cold = new TierlockCommitter(c);
      counts.put(Case.COLD, counted(counting, () -> cold.put(name("c1"), Fixtures.plainEntry("1.0.0"))));
    }
    return counts;
  }

  private static Map<Case, Count> upload(Protocol protocol, Path work) {
    Map<Case, Count> counts = new EnumMap<>(Case.class);
    try (FakeRemote remote = FakeRemote.create(); CountingDatastore counting = CountingDatastore.wrap(remote)) {
      Committer writer = committer(protocol, counting, work.resolve("a"));
      counts.put(Case.SELF_CHECK_NEW, new Count(zero()));
      counts.put(Case.SELF_CHECK_KNOWN, new Count(zero()));
      counts.put(Case.FIRST_CREATION, counted(counting, () -> writer.put(name("a1"), Fixtures.plainEntry("1.0.0"))));
      counts.put(Case.WARM, counted(counting, () -> writer.put(name("a2"), Fixtures.plainEntry("1.0.0"))));
      committer(protocol, remote, work.resolve("peer")).put(name("p1"), Fixtures.plainEntry("1.0.0"));
      counts.put(Case.AFTER_PEER, counted(counting, () -> writer.put(name("a3"), Fixtures.plainEntry("1.0.0"))));
      counts.put(Case.REMOVE, counted(counting, () -> writer.remove(name("a1"))));
      Committer cold = committer(protocol, counting, work.resolve("c"));
      counts.put(Case.COLD, counted(counting, () -> cold.put(name("c1"), Fixtures.plainEntry("1.0.0"))));
    }
    return counts;
  }

  private static Committer committer(Protocol protocol, Datastore store, Path directory) {
    return protocol == Protocol.BASELINE
        ? UploadProtocol.baseline(store, directory, directory.getFileName().toString(), 1)
        : UploadProtocol.noLock(store, directory);
  }

  private static Tierlock open(Datastore store, Path directory, CommitMode mode) {
    return TierlockCommitter.open(store, directory, directory.getFileName().toString(), mode, Protocol.GroupCommit.ON);
  }

  private static Count counted(CountingDatastore counting, Runnable action) {
    counting.reset();
    action.run();
    return new Count(counting.counts());
  }

  private static Map<DatastoreOperation, Long> zero() {
    Map<DatastoreOperation, Long> none = new EnumMap<>(DatastoreOperation.class);
    for (DatastoreOperation operation : DatastoreOperation.values()) {
      none.put(operation, 0L);
    }
    return none;
  }

  /** Returns {@code count} as {@code total (n operation, ...)}, for the report's cells. */
  static String cell(Count count) {
    String parts = count.calls().entrySet().stream()
        .filter(e -> e.getValue() > 0)
        .map(e -> e.getValue() + " " + e.getKey().name().toLowerCase().replace('_', ' '))
        .collect(java.util.stream.Collectors.joining(", "));
    return count.total() + (parts.isEmpty() ? "" : " (" + parts + ")");
  }

  private static ExtensionName name(String suffix) {
    return ExtensionName.of("@calls/" + suffix);
  }
}
