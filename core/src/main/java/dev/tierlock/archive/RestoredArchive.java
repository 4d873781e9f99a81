package dev.tierlock.archive;

import java.nio.file.Path;

/**
 * What {@link ArchiveTransactions#restore} put in place: the archive the shared lockfile pins,
 * verified against its key and extracted into a fresh staging directory. Immutable.
 *
 * @param key the archive's key: the entry's name and {@code checksum}
 * @param staging the directory the archive was extracted into
 * @param listing the entries written
 * @param origin where the verified bytes came from: the local cache, or the datastore
 */
public record RestoredArchive(ExtensionArchiveKey key, Path staging, ArchiveListing listing, ArchiveFile.Origin origin) {}
