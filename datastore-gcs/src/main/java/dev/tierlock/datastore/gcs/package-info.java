/** The GCS datastore on google-cloud-storage. */
@NullMarked
package dev.tierlock.datastore.gcs;

import org.jspecify.annotations.NullMarked;
