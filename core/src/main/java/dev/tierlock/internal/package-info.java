/**
 * Tierlock's internals shared between its own modules: not an API. The module exports this package
 * only to {@code dev.tierlock.testkit} and {@code dev.tierlock.datastore.fs}; on the class path it is
 * visible, but nothing in it is covered by compatibility promises. Do not use it.
 */
@NullMarked
package dev.tierlock.internal;

import org.jspecify.annotations.NullMarked;
