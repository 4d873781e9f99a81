/**
 * Tierlock's core: the shared lockfile's model and format, the transaction that changes it, the
 * locks, the datastore SPI and the archive store. Depends on no cloud SDK.
 */
module dev.tierlock.core {
  requires com.fasterxml.jackson.core;
  requires org.apache.commons.compress;
  requires org.slf4j;
  requires com.github.benmanes.caffeine;
  requires static transitive org.jspecify;

  exports dev.tierlock;
  exports dev.tierlock.spi;
  exports dev.tierlock.archive;
  exports dev.tierlock.install;
  exports dev.tierlock.internal to dev.tierlock.testkit, dev.tierlock.datastore.fs;

  uses dev.tierlock.spi.DatastoreProvider;
}
