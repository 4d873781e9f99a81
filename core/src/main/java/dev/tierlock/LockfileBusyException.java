package dev.tierlock;

import java.nio.file.Path;

/**
 * The lockfile's own local lock stayed held by another writer through every attempt. Nothing was
 * changed; retry shortly. Code {@code lockfile_busy}.
 */
public final class LockfileBusyException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "lockfile_busy";

  private final Path lockPath;

  /**
   * Creates the exception.
   *
   * @param lockfile the lockfile that was to be written
   * @param lockPath the lock file that stayed held
   * @param attempts how many attempts were made
   */
  public LockfileBusyException(Path lockfile, Path lockPath, int attempts) {
    super(CODE, "Cannot lock lockfile " + lockfile + ": its lock " + lockPath + " stayed held by another writer through "
        + attempts + " attempts; another operation may be in progress, retry shortly");
    this.lockPath = lockPath;
  }

  /** Returns the lock file that stayed held. */
  public Path lockPath() {
    return lockPath;
  }
}
