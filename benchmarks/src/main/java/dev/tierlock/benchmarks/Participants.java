package dev.tierlock.benchmarks;

import dev.tierlock.ExtensionName;

import dev.tierlock.Tierlock;
import dev.tierlock.spi.Datastore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The writers of one run: a committer per writer, laid out as its {@link Protocol} says, each
 * Tierlock checkout past the datastore self-check before the run starts. Closing closes every
 * checkout (not the store).
 */
final class Participants implements AutoCloseable {

  /** The Tierlock versions a lockfile in use carries before a run: as many as auto mode trusts. */
  static final int HISTORY = 8;

  private final List<Committer> committers;
  private final List<Tierlock> checkouts;

  private Participants(List<Committer> committers, List<Tierlock> checkouts) {
    this.committers = committers;
    this.checkouts = checkouts;
  }

  /** Opens {@code writers} writers of {@code protocol} on {@code store}, in directories under {@code workDirectory}. */
  static Participants open(Protocol protocol, Datastore store, Path workDirectory, int writers) {
    List<Committer> committers = new ArrayList<>();
    List<Tierlock> checkouts = new ArrayList<>();
    try {
      switch (protocol.shape()) {
        case SEPARATE -> {
          for (int i = 0; i < writers; i++) {
            Tierlock checkout = TierlockCommitter.open(store, workDirectory.resolve("w" + i), "w" + i,
                protocol.mode(), protocol.group());
            checkouts.add(checkout);
            checkout.checkDatastore();
            committers.add(new TierlockCommitter(checkout));
          }
        }
        case SHARED -> {
          Tierlock checkout = TierlockCommitter.open(store, workDirectory.resolve("shared"), "shared",
              protocol.mode(), protocol.group());
          checkouts.add(checkout);
          checkout.checkDatastore();
          TierlockCommitter committer = new TierlockCommitter(checkout);
          for (int i = 0; i < writers; i++) {
            committers.add(committer);
          }
        }
        case UPLOAD -> {
          StringifyJson.write(StringifyJson.read(Fixtures.lockfile(1).bytes())); // Jackson's first use is slow: not in the run
          for (int i = 0; i < writers; i++) {
            Path directory = workDirectory.resolve("w" + i);
            committers.add(protocol == Protocol.BASELINE
                ? UploadProtocol.baseline(store, directory, "w" + i, 31L * i + writers)
                : UploadProtocol.noLock(store, directory));
          }
        }
      }
      if (!checkouts.isEmpty()) {
        history(committers.get(0));
      }
    } catch (RuntimeException e) {
      checkouts.forEach(Tierlock::close);
      throw e;
    }
    return new Participants(committers, checkouts);
  }

  /**
   * Writes {@link #HISTORY} versions before the run, as a lockfile Tierlock has written for a while
   * carries them: auto mode is measured in its steady state (it runs locked on a lockfile with fewer
   * Tierlock versions in a row, a new one included), not through its first commits.
   */
  static void history(Committer committer) {
    for (int i = 0; i < HISTORY; i++) {
      committer.put(ExtensionName.of("@bench/history"), Fixtures.plainEntry("0.0." + i));
    }
  }

  /** Returns writer {@code i}'s committer. */
  Committer committer(int i) {
    return committers.get(i);
  }

  @Override
  public void close() {
    checkouts.forEach(Tierlock::close);
  }
}
