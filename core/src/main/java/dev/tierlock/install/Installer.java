package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionContext;
import dev.tierlock.archive.ArchiveLimits;
import java.time.Clock;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Installs, upgrades and removes extensions of one checkout ({@link Tierlock}) safely: prepare
 * with no lock held, apply under the locks with a journaled stage-and-swap, commit or roll back
 * across the embedding tool's catalog save. Thread-safe.
 */
public final class Installer {

  private final Tierlock tierlock;
  private final ExtensionLayout layout;
  private final @Nullable ExtensionRegistry registry;
  private final @Nullable SafetyAnalyzer safety;
  private final ArchiveLimits limits;
  private final Clock clock;

  private Installer(Builder builder) {
    this.tierlock = builder.tierlock;
    this.layout = builder.layout;
    this.registry = builder.registry;
    this.safety = builder.safety;
    this.limits = builder.limits;
    this.clock = builder.clock;
  }

  /**
   * Starts building the installer of {@code tierlock}'s checkout with the extensions laid out as
   * {@code layout} says.
   */
  public static Builder builder(Tierlock tierlock, ExtensionLayout layout) {
    return new Builder(tierlock, layout);
  }

  /**
   * Prepares {@code request} with no lock held.
   *
   * @return the prepared extension and its dependencies, staged
   */
  public PreparedInstall prepare(InstallRequest request) {
    throw new UnsupportedOperationException("being written");
  }

  /**
   * Applies {@code prepared} inside the running transaction {@code tx}, which must hold the
   * pulled-extensions lock.
   *
   * @return the pending install, to commit or roll back before the section ends
   */
  public PendingInstall apply(TransactionContext tx, PreparedInstall prepared) {
    throw new UnsupportedOperationException("being written");
  }

  /** Prepares, applies, saves the catalog and commits {@code request}, in one transaction. */
  public PendingInstall install(InstallRequest request, Catalog catalog) {
    throw new UnsupportedOperationException("being written");
  }

  /** Removes {@code name}: catalog, then lockfile, then files. */
  public void remove(ExtensionName name, Catalog catalog) {
    throw new UnsupportedOperationException("being written");
  }

  /** Finishes the installs interrupted on this checkout, under the pulled-extensions lock. */
  public RecoveryReport recover() {
    throw new UnsupportedOperationException("being written");
  }

  /** Builds an {@link Installer}. */
  public static final class Builder {
    private final Tierlock tierlock;
    private final ExtensionLayout layout;
    private @Nullable ExtensionRegistry registry;
    private @Nullable SafetyAnalyzer safety;
    private ArchiveLimits limits = ArchiveLimits.DEFAULTS;
    private Clock clock = Clock.systemUTC();

    private Builder(Tierlock tierlock, ExtensionLayout layout) {
      this.tierlock = Objects.requireNonNull(tierlock, "tierlock");
      this.layout = Objects.requireNonNull(layout, "layout");
    }

    /** Sets the registry releases come from when the tier lacks them; by default none (tier only). */
    public Builder registry(ExtensionRegistry value) {
      this.registry = Objects.requireNonNull(value, "registry");
      return this;
    }

    /** Sets the safety analysis run on every staged extension; by default none. */
    public Builder safetyAnalyzer(SafetyAnalyzer value) {
      this.safety = Objects.requireNonNull(value, "safetyAnalyzer");
      return this;
    }

    /** Sets the archive caps; by default {@link ArchiveLimits#DEFAULTS}. */
    public Builder archiveLimits(ArchiveLimits value) {
      this.limits = Objects.requireNonNull(value, "archiveLimits");
      return this;
    }

    /** Sets the clock of the staging sweep (an hour) and of pulledAt; by default the system UTC clock. */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /** Builds the installer. */
    public Installer build() {
      return new Installer(this);
    }
  }
}
