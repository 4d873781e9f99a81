/** Tierlock's operator command line. */
@NullMarked
package dev.tierlock.cli;

import org.jspecify.annotations.NullMarked;
