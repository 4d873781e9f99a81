/**
 * Tierlock's benchmarks: the contention drivers, the baseline protocols they are measured against,
 * the JMH benchmarks of the codec and of one put, and the report writer ({@link
 * dev.tierlock.benchmarks.BenchmarkReport}). Nothing here is a test; nothing here is published.
 */
@NullMarked
package dev.tierlock.benchmarks;

import org.jspecify.annotations.NullMarked;
