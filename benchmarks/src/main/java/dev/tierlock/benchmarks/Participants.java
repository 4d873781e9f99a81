package dev.tierlock.benchmarks;

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
    } catch (RuntimeException e) {
      checkouts.forEach(Tierlock::close);
      throw e;
    }
    return new Participants(committers, checkouts);
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
