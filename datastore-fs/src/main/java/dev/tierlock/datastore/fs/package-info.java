/**
 * The filesystem datastore: a shared directory whose objects are plain files, changed under
 * per-key OS file locks by atomic renames, and used by Tierlock like any other datastore. {@link dev.tierlock.datastore.fs.FileSystemDatastore} is the datastore, opened directly
 * or through {@link dev.tierlock.datastore.fs.FileSystemDatastoreProvider} for {@code file:} URIs.
 */
@NullMarked
package dev.tierlock.datastore.fs;

import org.jspecify.annotations.NullMarked;
