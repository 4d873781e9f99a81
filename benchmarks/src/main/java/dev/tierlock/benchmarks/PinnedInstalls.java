package dev.tierlock.benchmarks;

import dev.tierlock.CommitMode;
import dev.tierlock.Tierlock;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.install.Installer;
import dev.tierlock.testkit.CountingDatastore;
import dev.tierlock.testkit.FakeRegistry;
import dev.tierlock.testkit.FakeRemote;
import dev.tierlock.testkit.TempDirLayout;
import dev.tierlock.testkit.TestArchives;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Section 9: what a warm install that pins an archive costs, per commit mode: datastore calls
 * counted with the testkit's {@link CountingDatastore} on a fake remote without latency, the
 * installer on the testkit's {@link FakeRegistry}. The checkout is warm: past its self-check and
 * one install. Counted: a new extension, then an upgrade of one installed.
 */
final class PinnedInstalls {

  /**
   * One counted install.
   *
   * @param mode the checkout's commit mode
   * @param install what was installed
   * @param calls every datastore call of the install
   * @param keys the same calls by the object they name
   */
  record Row(CommitMode mode, String install, CallCounts.Count calls, KeyCalls.Counts keys) {

    /** Returns the archives the install added to the tier. */
    long archiveUploads() {
      return keys.of(KeyCalls.Kind.ARCHIVE, KeyCalls.Call.WRITE);
    }

    /** Returns the calls besides the archive uploads. */
    long beside() {
      return calls.total() - archiveUploads();
    }
  }

  private PinnedInstalls() {}

  /** Measures every mode of {@link Protocol#MODES}. */
  static List<Row> measure(Path work) {
    List<Row> rows = new ArrayList<>();
    for (CommitMode mode : Protocol.MODES) {
      rows.addAll(mode(mode, work.resolve("pinned-" + mode.name().toLowerCase())));
    }
    return rows;
  }

  private static List<Row> mode(CommitMode mode, Path directory) {
    FakeRegistry registry = FakeRegistry.create();
    for (String name : List.of("@pin/first", "@pin/second")) {
      for (String version : List.of("1.0.0", "2.0.0")) {
        registry.publish(name, version, TestArchives.extension(name, version).file("index.js", name + version).build());
      }
    }
    List<Row> rows = new ArrayList<>();
    try (FakeRemote remote = FakeRemote.create(); KeyCalls keys = new KeyCalls(remote);
        CountingDatastore counting = CountingDatastore.wrap(keys);
        Tierlock tierlock = TierlockCommitter.open(counting, directory.resolve("checkout"), "installer", mode,
            Protocol.GroupCommit.ON)) {
      tierlock.checkDatastore();
      Participants.history(new TierlockCommitter(tierlock));
      Installer installer = Installer.builder(tierlock, TempDirLayout.in(directory.resolve("checkout")))
          .registry(registry).build();
      installer.install(InstallRequest.parse("@pin/first@1.0.0"), Catalog.NONE);
      rows.add(counted(mode, "a new extension (`@pin/second@1.0.0`)", keys, counting, installer, "@pin/second@1.0.0"));
      rows.add(counted(mode, "an upgrade (`@pin/first@2.0.0`)", keys, counting, installer, "@pin/first@2.0.0"));
    } finally {
      WorkDirectory.delete(directory);
    }
    return rows;
  }

  private static Row counted(CommitMode mode, String label, KeyCalls keys, CountingDatastore counting,
      Installer installer, String request) {
    keys.reset();
    counting.reset();
    installer.install(InstallRequest.parse(request), Catalog.NONE);
    CallCounts.Count calls = new CallCounts.Count(counting.counts());
    return new Row(mode, label, calls, keys.counts());
  }
}
