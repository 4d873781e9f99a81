/**
 * Tierlock's test kit, used from JUnit 5 tests: the fake remote, the contract suites every
 * datastore passes, and a GCS JSON-API fake server. The contracts' lifecycle methods and fields
 * are package-private, so their package is open to JUnit's reflection.
 */
module dev.tierlock.testkit {
  requires transitive dev.tierlock.core;
  requires transitive org.junit.jupiter.api;
  requires org.assertj.core;
  requires com.fasterxml.jackson.databind;
  requires jdk.httpserver;
  requires static transitive org.jspecify;

  exports dev.tierlock.testkit;
  exports dev.tierlock.testkit.gcs;

  opens dev.tierlock.testkit to org.junit.platform.commons;
}
