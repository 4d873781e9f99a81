package dev.tierlock.archive;

import java.nio.file.Path;

/**
 * An archive that {@link ArchiveTransactions#verify} accepted: its bytes hash to its key and its
 * listing passed every cap and entry rule. The bytes wait in the archive store's cache until {@link
 * ArchiveTransactions#install} writes them to the tier (which hashes them once more first). Only
 * {@link ArchiveTransactions#verify} creates one. Immutable.
 */
public final class VerifiedArchive {

  private final ExtensionArchiveKey key;
  private final Path path;
  private final long size;
  private final ArchiveListing listing;

  VerifiedArchive(ExtensionArchiveKey key, Path path, long size, ArchiveListing listing) {
    this.key = key;
    this.path = path;
    this.size = size;
    this.listing = listing;
  }

  /** {@return the archive's key} */
  public ExtensionArchiveKey key() {
    return key;
  }

  /** {@return the verified copy in the archive store's cache; read it, never modify or move it} */
  public Path path() {
    return path;
  }

  /** {@return the archive's size in bytes} */
  public long size() {
    return size;
  }

  /** {@return the entries the archive holds, as the verifying pass listed them} */
  public ArchiveListing listing() {
    return listing;
  }

  @Override
  public String toString() {
    return "VerifiedArchive[" + key + ", " + size + " bytes, " + listing.entries().size() + " entries]";
  }
}
