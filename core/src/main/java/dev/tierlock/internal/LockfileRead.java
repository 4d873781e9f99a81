package dev.tierlock.internal;

import dev.tierlock.Lockfile;
import java.util.Optional;

/**
 * The shared lockfile as one conditional read found it.
 *
 * @param version the store's version of it, empty when it does not exist
 * @param lockfile what it holds ({@link Lockfile#EMPTY} when it does not exist)
 */
public record LockfileRead(Optional<String> version, Lockfile lockfile) {}
