/**
 * What a datastore implements: conditional object operations on keys under a bucket and prefix.
 *
 * <p>A backend provides a {@link dev.tierlock.spi.Datastore}: reads that may be conditional on a
 * version, writes and deletes with a {@link dev.tierlock.spi.WriteCondition}, listing by prefix and
 * user metadata on writes. Versions are opaque ({@code ETag} on S3, generation on GCS). Expected
 * outcomes (absent, not modified, precondition failed) are return values; failures are the
 * exceptions of {@link dev.tierlock.spi.DatastoreException}, translated at the backend boundary so that
 * no vendor type leaks. Backends are found by URI scheme through {@link
 * dev.tierlock.spi.DatastoreProvider} and {@link java.util.ServiceLoader}.
 */
@NullMarked
package dev.tierlock.spi;

import org.jspecify.annotations.NullMarked;
