package dev.tierlock.cli;

import dev.tierlock.Namespace;
import dev.tierlock.Tierlock;
import dev.tierlock.TierlockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What one {@code tierlock doctor} run examines: the checkout and its state directory, the moment
 * of the run, the datastore once it is open (read-only), and Tierlock on them, opened only when a
 * check needs it. It closes the Tierlock it opened; whoever opened the datastore closes it. Not
 * thread-safe: the checks run one after another.
 */
final class DoctorContext implements AutoCloseable {

  private final Instant now;
  private final Clock clock;
  private final Namespace namespace;
  private final Path checkout;
  private final Path state;
  private final boolean stateExisted;
  private final boolean selfCheck;
  private final Tierlock.Builder builder;
  private final @Nullable ReadOnlyDatastore datastore;
  private @Nullable Tierlock tierlock;

  /**
   * Takes in what a run examines, and notes whether the state directory exists before any check
   * runs (a {@code --self-check} may create it).
   *
   * @param now the moment of the run, which every age is measured to
   * @param clock the command line's clock
   * @param namespace the namespace in the datastore
   * @param checkout the checkout directory, absolute
   * @param builder a builder on the datastore and checkout, with the command line's options
   * @param selfCheck whether {@code --self-check} asks for the precondition self-check to run
   */
  DoctorContext(Instant now, Clock clock, Namespace namespace, Path checkout, Tierlock.Builder builder,
      boolean selfCheck) {
    this(now, clock, namespace, checkout, Files.isDirectory(checkout.resolve(Tierlock.DEFAULT_STATE_DIRECTORY)),
        builder, selfCheck, null);
  }

  private DoctorContext(Instant now, Clock clock, Namespace namespace, Path checkout, boolean stateExisted,
      Tierlock.Builder builder, boolean selfCheck, @Nullable ReadOnlyDatastore datastore) {
    this.now = now;
    this.clock = clock;
    this.namespace = namespace;
    this.checkout = checkout;
    this.state = checkout.resolve(Tierlock.DEFAULT_STATE_DIRECTORY);
    this.stateExisted = stateExisted;
    this.selfCheck = selfCheck;
    this.builder = builder;
    this.datastore = datastore;
  }

  /** Returns this context with {@code datastore} open for the checks that read it. */
  DoctorContext over(ReadOnlyDatastore datastore) {
    return new DoctorContext(now, clock, namespace, checkout, stateExisted, builder, selfCheck, datastore);
  }

  Instant now() {
    return now;
  }

  Clock clock() {
    return clock;
  }

  Namespace namespace() {
    return namespace;
  }

  /** Returns the checkout directory, absolute. */
  Path checkout() {
    return checkout;
  }

  /** Returns the checkout's state directory ({@code .swamp}). */
  Path state() {
    return state;
  }

  /** Returns whether the state directory existed when the run began. */
  boolean stateExisted() {
    return stateExisted;
  }

  /** Returns whether {@code --self-check} asks for the precondition self-check to run. */
  boolean selfCheckRequested() {
    return selfCheck;
  }

  /**
   * Returns the open datastore.
   *
   * @throws IllegalStateException if none is open (a check that reads it runs only once it is)
   */
  ReadOnlyDatastore datastore() {
    if (datastore == null) {
      throw new IllegalStateException("doctor has no open datastore");
    }
    return datastore;
  }

  /** Returns whether Tierlock is open on the datastore and checkout. */
  boolean tierlockOpen() {
    return tierlock != null;
  }

  /**
   * Returns Tierlock on the datastore and checkout, opening it the first time. It creates the state
   * directory if there is none yet: a check calls it only when that is wanted or the directory
   * exists.
   *
   * @throws TierlockException if it cannot be opened (the next call tries again)
   */
  Tierlock tierlock() {
    if (tierlock == null) {
      tierlock = builder.datastore(datastore()).build();
    }
    return tierlock;
  }

  @Override
  public void close() {
    if (tierlock != null) {
      tierlock.close();
    }
  }

  /** Returns how long before this run {@code then} was, for people: {@code 3 s ago}, {@code 2 h 5 min ago}. */
  String ago(Instant then) {
    return ago(then, now);
  }

  /** Returns how long ago {@code then} was at {@code now}, for people: {@code 3 s ago}, {@code 2 h 5 min ago}. */
  static String ago(Instant then, Instant now) {
    Duration d = Duration.between(then, now);
    if (d.isNegative()) {
      return "in " + span(d.negated()) + " by this clock";
    }
    return span(d) + " ago";
  }

  private static String span(Duration d) {
    long s = d.toSeconds();
    if (s < 120) {
      return s < 1 ? d.toMillis() + " ms" : s + " s";
    }
    if (s < 7200) {
      return s / 60 + " min";
    }
    if (s < 3 * 86400) {
      return s / 3600 + " h " + (s % 3600) / 60 + " min";
    }
    return s / 86400 + " days";
  }
}
