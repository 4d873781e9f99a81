package dev.tierlock.internal;

import dev.tierlock.converge.Converger;
import java.util.function.Consumer;

/**
 * What crash tests reach of convergence beyond its public API: the hook told of every swap
 * boundary of the restores and removals a pass makes (as {@link InstallAccess#boundaries} names
 * them), so a test can kill a process exactly there. Internal.
 */
public final class ConvergeAccess {

  /** Sets a converger builder's boundary hook; registered by {@link Converger}. */
  public interface Accessor {
    /**
     * Sets {@code hook} on {@code builder}.
     *
     * @param builder the builder
     * @param hook told the name of each boundary as it is passed
     */
    void boundaries(Converger.Builder builder, Consumer<String> hook);
  }

  private static volatile @org.jspecify.annotations.Nullable Accessor accessor;

  private ConvergeAccess() {}

  /**
   * Registers the accessor; only {@link Converger} calls this, once.
   *
   * @param value the accessor
   */
  public static synchronized void register(Accessor value) {
    if (accessor != null) {
      throw new IllegalStateException("Cannot register a second convergence accessor");
    }
    accessor = value;
  }

  /**
   * Sets {@code hook} as {@code builder}'s boundary hook.
   *
   * @param builder a converger builder
   * @param hook told each boundary's name; a hook that throws fails the step after it
   * @return {@code builder}
   */
  public static Converger.Builder boundaries(Converger.Builder builder, Consumer<String> hook) {
    Accessor known = accessor;
    if (known == null) {
      try {
        Class.forName(Converger.class.getName(), true, Converger.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("Cannot reach the converger", e);
      }
      known = accessor;
    }
    if (known == null) {
      throw new IllegalStateException("Cannot reach the converger: it registered no accessor");
    }
    known.boundaries(builder, hook);
    return builder;
  }
}
