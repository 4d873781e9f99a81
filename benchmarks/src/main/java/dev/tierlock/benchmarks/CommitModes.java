package dev.tierlock.benchmarks;

import dev.tierlock.Tierlock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Optional;

/**
 * The one place that names core's commit modes: {@code dev.tierlock.CommitMode {LOCKED,
 * OPTIMISTIC}}, {@code Tierlock.Builder#commitMode(CommitMode)} and {@code
 * Tierlock.Builder#groupCommit(boolean)}. They are looked up by name, so this module builds and runs
 * on a core without them: {@link #available()} is then false and only what core does without them
 * is measured (locked, no group commit); the other rows of the report say "mode not available in
 * this build". Once core has them, calling them directly here is the one change to make.
 */
final class CommitModes {

  /** How a checkout publishes. */
  enum Mode {
    /** Takes the datastore global lease for each run (core's default). */
    LOCKED,
    /** No lease: the conditional publish and per-name rebase alone. */
    OPTIMISTIC
  }

  /** Whether runs queued on one checkout are merged into one publish. */
  enum GroupCommit {
    /** As core does unless told: on where core has group commit. */
    DEFAULT,
    /** Merged. */
    ON,
    /** One publish per run. */
    OFF
  }

  private record Api(Class<?> modeType, Method commitMode, Method groupCommit) {}

  private static final Optional<Api> API = find();

  private CommitModes() {}

  /** Returns whether this build of core has the commit modes and group commit. */
  static boolean available() {
    return API.isPresent();
  }

  /** Returns whether a checkout in {@code mode} with {@code group} can be built with this core. */
  static boolean supports(Mode mode, GroupCommit group) {
    return available() || (mode == Mode.LOCKED && group != GroupCommit.ON);
  }

  /**
   * Sets {@code mode} and, unless {@link GroupCommit#DEFAULT}, group commit on {@code builder}.
   *
   * @throws IllegalStateException if this core cannot do it ({@link #supports})
   */
  static Tierlock.Builder apply(Tierlock.Builder builder, Mode mode, GroupCommit group) {
    if (API.isEmpty()) {
      if (!supports(mode, group)) {
        throw new IllegalStateException("Cannot build a " + mode + " checkout with group commit " + group
            + ": this core has no commit modes");
      }
      return builder;
    }
    Api api = API.get();
    try {
      Object constant = api.modeType().getField(mode.name()).get(null);
      api.commitMode().invoke(builder, constant);
      if (group != GroupCommit.DEFAULT) {
        api.groupCommit().invoke(builder, group == GroupCommit.ON);
      }
      return builder;
    } catch (IllegalAccessException | NoSuchFieldException e) {
      throw new IllegalStateException("Cannot set commit mode " + mode + ": " + e, e);
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("Cannot set commit mode " + mode + ": " + e.getCause(), e.getCause());
    }
  }

  private static Optional<Api> find() {
    try {
      Class<?> modeType = Class.forName("dev.tierlock.CommitMode");
      Method commitMode = Tierlock.Builder.class.getMethod("commitMode", modeType);
      Method groupCommit = Tierlock.Builder.class.getMethod("groupCommit", boolean.class);
      return Optional.of(new Api(modeType, commitMode, groupCommit));
    } catch (ClassNotFoundException | NoSuchMethodException e) {
      return Optional.empty();
    }
  }
}
