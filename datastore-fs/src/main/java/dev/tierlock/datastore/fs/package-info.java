/**
 * The filesystem datastore: a shared directory used in direct mode, with OS file locks and atomic
 * renames. {@link dev.tierlock.datastore.fs.FileSystemDatastore} is the datastore, opened directly
 * or through {@link dev.tierlock.datastore.fs.FileSystemDatastoreProvider} for {@code file:} URIs.
 */
@NullMarked
package dev.tierlock.datastore.fs;

import org.jspecify.annotations.NullMarked;
