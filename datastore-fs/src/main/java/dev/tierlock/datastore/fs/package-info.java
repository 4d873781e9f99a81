/** The filesystem datastore: a shared directory used in direct mode, with OS file locks and atomic renames. */
@NullMarked
package dev.tierlock.datastore.fs;

import org.jspecify.annotations.NullMarked;
