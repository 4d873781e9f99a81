/**
 * The S3 datastore on the AWS SDK for Java v2.
 *
 * <p>Build one from your own client with {@link dev.tierlock.datastore.s3.S3Datastore#of} and an
 * {@link dev.tierlock.datastore.s3.S3DatastoreConfig} (bucket, key prefix, deadlines), or open one
 * from a URI such as {@code s3://bucket/prefix?region=eu-west-1} through {@link
 * dev.tierlock.Datastores#open(java.net.URI)}, which finds {@link
 * dev.tierlock.datastore.s3.S3DatastoreProvider} with {@link java.util.ServiceLoader}. Versions are
 * ETags; conditional writes use {@code If-None-Match: *} and {@code If-Match}; a conditional write
 * whose first attempt may have landed is reported as {@link dev.tierlock.spi.OutcomeUnknownException},
 * never as a precondition failure (see {@link dev.tierlock.datastore.s3.ConditionalWriteRetries}).
 * No AWS SDK exception leaves this package.
 */
@NullMarked
package dev.tierlock.datastore.s3;

import org.jspecify.annotations.NullMarked;
