/**
 * Tierlock's public API: the lockfile model and codec, the repository, locks, the sync port and
 * {@link dev.tierlock.LockfileTransaction}, which most callers use through {@link
 * dev.tierlock.Tierlock}.
 *
 * <p>Every failure is a {@link dev.tierlock.TierlockException} with a stable {@code code()}; its
 * subtype says what the caller can do next.
 */
@NullMarked
package dev.tierlock;

import org.jspecify.annotations.NullMarked;
