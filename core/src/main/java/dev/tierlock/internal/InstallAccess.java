package dev.tierlock.internal;

import dev.tierlock.install.Installer;
import java.util.function.Consumer;

/**
 * What crash tests reach of the install engine beyond its public API: a hook told of every step
 * boundary of an install, a removal and a recovery ({@code journal-written}, {@code moved-out/0},
 * {@code manifest-in}, {@code journal-swapped}, {@code installer/applied}, {@code
 * installer/published}, ...), so a test can stop or kill a process exactly there. Internal.
 */
public final class InstallAccess {

  /** Sets an installer builder's boundary hook; registered by {@link Installer}. */
  public interface Accessor {
    /**
     * Sets {@code hook} on {@code builder}.
     *
     * @param builder the builder
     * @param hook told the name of each boundary as it is passed
     */
    void boundaries(Installer.Builder builder, Consumer<String> hook);

    /**
     * Returns what convergence does with {@code installer} (in converge mode).
     *
     * @param installer the installer
     * @return its steps
     */
    ConvergeSteps steps(Installer installer);
  }

  private static volatile @org.jspecify.annotations.Nullable Accessor accessor;

  private InstallAccess() {}

  /**
   * Registers the accessor; only {@link Installer} calls this, once.
   *
   * @param value the accessor
   */
  public static synchronized void register(Accessor value) {
    if (accessor != null) {
      throw new IllegalStateException("Cannot register a second install accessor");
    }
    accessor = value;
  }

  /**
   * Sets {@code hook} as {@code builder}'s boundary hook.
   *
   * @param builder an installer builder
   * @param hook told each boundary's name; a hook that throws fails the step after it
   * @return {@code builder}
   */
  public static Installer.Builder boundaries(Installer.Builder builder, Consumer<String> hook) {
    accessor().boundaries(builder, hook);
    return builder;
  }

  /**
   * Returns the convergence steps of {@code installer}.
   *
   * @param installer an installer in converge mode
   * @return its steps
   */
  public static ConvergeSteps steps(Installer installer) {
    return accessor().steps(installer);
  }

  private static Accessor accessor() {
    Accessor known = accessor;
    if (known == null) {
      try {
        Class.forName(Installer.class.getName(), true, Installer.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("Cannot reach the installer", e);
      }
      known = accessor;
    }
    if (known == null) {
      throw new IllegalStateException("Cannot reach the installer: it registered no accessor");
    }
    return known;
  }
}
