/**
 * What core shares with Tierlock's own filesystem datastore and testkit, and nothing else: the
 * OS-lock registry ({@link dev.tierlock.internal.OsLockRegistry}) through which every local lock
 * opens and locks its lock file (the datastore's key locks included), with its fair in-JVM queue
 * ({@link dev.tierlock.internal.TurnQueue}, which the datastore global lease waits in too); the
 * writer that replaces a local file atomically ({@link dev.tierlock.internal.AtomicFileWriter}); the
 * one deadline and backoff every wait runs on ({@link dev.tierlock.internal.Deadline}, {@link
 * dev.tierlock.internal.Backoff}); and the lockfile codec's work tally that tests read ({@link
 * dev.tierlock.internal.CodecTally}). It imports no other package of Tierlock, so it sits below
 * everything that uses it.
 *
 * <p><b>Internal by contract.</b> Its public types are public only so that those modules can use
 * them; they are not part of Tierlock's API, are left out of its Javadoc and change without notice.
 * The module descriptor exports the package only to {@code dev.tierlock.datastore.fs} and {@code
 * dev.tierlock.testkit}; a contract of the testkit reaches it only in a child JVM it starts on the
 * class path, so a datastore module that runs the contracts in its own module on the module path
 * needs nothing from it.
 */
@NullMarked
package dev.tierlock.internal;

import org.jspecify.annotations.NullMarked;
