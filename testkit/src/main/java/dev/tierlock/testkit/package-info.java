/**
 * Tierlock's test kit: a fake remote datastore with fault injection, a round-trip counting
 * wrapper, a JUnit 5 extension, the contract suites every datastore passes, the install engine's
 * fakes ({@link dev.tierlock.testkit.FakeRegistry}, {@link dev.tierlock.testkit.TempDirLayout},
 * {@link dev.tierlock.testkit.TestArchives}), and (in {@code dev.tierlock.testkit.gcs}) a GCS
 * JSON-API fake server.
 */
@NullMarked
package dev.tierlock.testkit;

import org.jspecify.annotations.NullMarked;
