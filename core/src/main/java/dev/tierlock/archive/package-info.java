/**
 * The archive store: content-addressed extension archives in the config tier, verified on every
 * read, and extracted safely within size caps.
 *
 * <ul>
 *   <li>{@link dev.tierlock.archive.ExtensionArchiveKey} names one archive by extension name and
 *       SHA-256; its tier path is {@code config/pulled-archives/<name>/<sha256>.tar.gz}.
 *   <li>{@link dev.tierlock.archive.ArchiveTransactions} (the way in: {@code
 *       ArchiveTransactions.of(tierlock)}) verifies an archive, installs, updates and removes it
 *       together with the shared lockfile (archive first, superseded archive deleted after the
 *       lockfile publish), restores what the lockfile pins on a peer, and extracts a {@code
 *       .tar.gz} in one streaming pass, rejecting hostile entries, within {@link
 *       dev.tierlock.archive.ArchiveLimits}.
 *   <li>{@link dev.tierlock.archive.ArchiveStore} reads, stores and deletes archives in a datastore
 *       through a local cache: a checkout's through {@link
 *       dev.tierlock.archive.ArchiveTransactions#store()}, any datastore's through {@link
 *       dev.tierlock.archive.ArchiveStore#over}.
 * </ul>
 *
 * <p>Package-private: the tar reader and its guards, the staging writer, the datastore-backed
 * store and its cache.
 *
 * <p>Every failure is an {@link dev.tierlock.archive.ArchiveException}, whose stable code says
 * which case it is ({@code archive_limit}, {@code archive_rejected}, {@code archive_tampered},
 * {@code archive_corrupt}, {@code archive_io}, {@code archive_timeout}, {@code archive_cancelled},
 * {@code archive_missing}, {@code invalid_archive_key}), or, for datastore calls, a {@link
 * dev.tierlock.spi.DatastoreException}.
 */
@NullMarked
package dev.tierlock.archive;

import org.jspecify.annotations.NullMarked;
