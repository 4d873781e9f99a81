/**
 * A GCS JSON-API fake server for tests: {@link dev.tierlock.testkit.gcs.GcsFakeServer}.
 *
 * <p>The server speaks the subset of the Cloud Storage JSON API that object stores built on
 * generations rely on (buckets; object uploads of every kind; media downloads with ranges;
 * metadata get, patch and delete; listing with prefix, delimiter and pages) and honours all four
 * generation and metageneration preconditions atomically. The real {@code google-cloud-storage}
 * client talks to it over HTTP on the loopback address. Faults can be injected with {@link
 * dev.tierlock.testkit.gcs.GcsFaults}, and {@link dev.tierlock.testkit.gcs.GcsFakeServerExtension}
 * gives JUnit 5 tests one server per class and a fresh bucket per test. It depends on nothing
 * beyond the JDK's {@code com.sun.net.httpserver} and Jackson.
 */
@NullMarked
package dev.tierlock.testkit.gcs;

import org.jspecify.annotations.NullMarked;
