/**
 * Convergence: every checkout sharing a datastore ends up with exactly the extensions the shared
 * lockfile pins, restored from the tier's archives alone, cheaply (a pass with nothing to do costs
 * one conditional read, or none), with backoff for what failed, and a {@link
 * dev.tierlock.converge.ConvergePoller poller} that tells a long-running embedder when to reload.
 * The way in is {@link dev.tierlock.converge.Converger}.
 */
@NullMarked
package dev.tierlock.converge;

import org.jspecify.annotations.NullMarked;
