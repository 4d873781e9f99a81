/**
 * Tierlock's internals shared between its own modules: the OS-lock registry ({@link
 * dev.tierlock.internal.OsLockRegistry}) through which every local lock of Tierlock opens and locks
 * its lock file, and the one fair in-JVM queue ({@link dev.tierlock.internal.TurnQueue}) that the
 * registry and the datastore global lock both wait in. It imports no other package of Tierlock.
 *
 * <p><b>Internal by contract.</b> The public types here are public only so that other Tierlock
 * modules can use them; they are not part of Tierlock's API and change without notice. The
 * module descriptor will export this package only to {@code dev.tierlock.datastore.fs} and {@code
 * dev.tierlock.testkit}. Code outside Tierlock must not use it.
 */
@NullMarked
package dev.tierlock.internal;

import org.jspecify.annotations.NullMarked;
