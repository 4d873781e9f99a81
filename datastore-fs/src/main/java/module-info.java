/**
 * Tierlock's filesystem datastore: a shared directory whose objects are plain files, for {@code
 * file:} URIs. Its key locks use core's OS-lock registry, exported to this module only.
 */
module dev.tierlock.datastore.fs {
  requires transitive dev.tierlock.core;
  requires org.slf4j;
  requires static transitive org.jspecify;

  exports dev.tierlock.datastore.fs;

  provides dev.tierlock.spi.DatastoreProvider with dev.tierlock.datastore.fs.FileSystemDatastoreProvider;
}
