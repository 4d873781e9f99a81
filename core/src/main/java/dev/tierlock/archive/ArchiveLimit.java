package dev.tierlock.archive;

/** The cap an {@link ArchiveException} ({@code archive_limit}) reports. */
public enum ArchiveLimit {
  /** {@link ArchiveLimits#maxCompressedBytes()}: the archive file is too large. */
  COMPRESSED_BYTES("its compressed size", "bytes"),
  /** {@link ArchiveLimits#maxDecompressedBytes()}: one pass would decompress too much. */
  DECOMPRESSED_BYTES("its decompressed size", "bytes"),
  /** {@link ArchiveLimits#maxEntries()}: too many entries and implied directories. */
  ENTRIES("its number of entries and implied directories", "entries"),
  /** {@link ArchiveLimits#maxPathLength()}: an entry name or link target is too long. */
  PATH_LENGTH("an entry name or link target", "characters"),
  /**
   * A header the parsers would hold in memory is too large: a tar extended header (PAX or GNU long
   * name; 64 KiB each, 64 KiB of global headers in all) or the gzip header's file name or comment
   * (4 KiB each). Fixed: legitimate archives stay far below.
   */
  EXTENDED_HEADER("an extended header", "bytes"),
  /**
   * More than 16 tar extended headers precede one entry (the parser recurses once per header).
   * Fixed: legitimate archives use one or two.
   */
  EXTENDED_HEADERS_IN_A_ROW("its run of extended headers before one entry", "headers");

  private final String what;
  private final String unit;

  ArchiveLimit(String what, String unit) {
    this.what = what;
    this.unit = unit;
  }

  /** {@return what is measured, for messages ("its decompressed size")} */
  public String what() {
    return what;
  }

  /** {@return the unit of the measure ("bytes")} */
  public String unit() {
    return unit;
  }
}
