package dev.tierlock.install;

import dev.tierlock.archive.ArchiveLimits;
import java.time.Clock;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The options the install engine runs with, set once on an {@link Installer.Builder} or a {@link
 * Converger.Builder} and read by every part of the engine they build (prepare, swap, recovery,
 * convergence), so neither builder passes them on one by one. Immutable.
 *
 * @param limits the archive caps of every download, read and extraction
 * @param safety the analysis of every staged tree, or null for none
 * @param clock the clock of pulledAt, of the staging sweep and of convergence's retries
 * @param ids where owner and staging ids come from, each a plain name not used before
 * @param boundaries the hook told of every crash boundary ({@link SwapBoundary#NONE} in production)
 */
record EngineSettings(ArchiveLimits limits, @Nullable SafetyAnalyzer safety, Clock clock, Supplier<String> ids,
    SwapBoundary boundaries) {

  /** {@link ArchiveLimits#DEFAULTS}, no safety analysis, the system UTC clock, random UUIDs, no hook. */
  static final EngineSettings DEFAULTS = new EngineSettings(ArchiveLimits.DEFAULTS, null, Clock.systemUTC(),
      () -> UUID.randomUUID().toString(), SwapBoundary.NONE);

  EngineSettings {
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(ids, "ids");
    Objects.requireNonNull(boundaries, "boundaries");
  }

  EngineSettings withLimits(ArchiveLimits value) {
    return new EngineSettings(Objects.requireNonNull(value, "archiveLimits"), safety, clock, ids, boundaries);
  }

  EngineSettings withSafety(SafetyAnalyzer value) {
    return new EngineSettings(limits, Objects.requireNonNull(value, "safetyAnalyzer"), clock, ids, boundaries);
  }

  EngineSettings withClock(Clock value) {
    return new EngineSettings(limits, safety, Objects.requireNonNull(value, "clock"), ids, boundaries);
  }

  EngineSettings withIds(Supplier<String> value) {
    return new EngineSettings(limits, safety, clock, Objects.requireNonNull(value, "ids"), boundaries);
  }

  EngineSettings withBoundaries(SwapBoundary value) {
    return new EngineSettings(limits, safety, clock, ids, Objects.requireNonNull(value, "boundaries"));
  }
}
