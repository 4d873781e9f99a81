package dev.tierlock.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.function.Function;

/**
 * Tries a lock file through the registry of the class loader that loaded this class, so that a
 * test can load it into a second class loader and probe a lock the first one holds. Talks through
 * {@link Function} only, which both loaders share. Returns {@code busy}, {@code acquired} (then
 * releases) or {@code reentered}.
 */
public final class LoaderProbe implements Function<Path, String> {

  /** Creates the probe; public for reflection. */
  public LoaderProbe() {}

  @Override
  public String apply(Path lockFile) {
    try {
      OsLockRegistry.Attempt attempt = OsLockRegistry.shared().tryAcquire(lockFile, "a probe from another class loader",
          Clock.systemUTC());
      if (attempt instanceof OsLockRegistry.Attempt.Acquired acquired) {
        acquired.lock().release();
        return "acquired";
      }
      return attempt instanceof OsLockRegistry.Attempt.Busy ? "busy" : "reentered";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
