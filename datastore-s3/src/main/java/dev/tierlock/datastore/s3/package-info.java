/** The S3 datastore on the AWS SDK for Java v2. */
@NullMarked
package dev.tierlock.datastore.s3;

import org.jspecify.annotations.NullMarked;
