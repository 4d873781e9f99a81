package dev.tierlock.archive;

/**
 * Where one pass puts the entries it accepted: nowhere (a listing) or a staging directory (an
 * extraction). Called in archive order, symbolic links last, after every check passed. Methods
 * throw only unchecked {@link ArchiveException}s.
 */
interface EntrySink {

  /** Receives the bytes of one file; closed by the pass. */
  interface FileOutput extends AutoCloseable {

    /** Writes the next bytes of the file. */
    void write(byte[] buffer, int offset, int length);

    @Override
    void close();
  }

  /** A sink that keeps nothing: the pass only checks the archive. */
  EntrySink NONE = new EntrySink() {
    private final FileOutput discard = new FileOutput() {
      @Override
      public void write(byte[] buffer, int offset, int length) {
        // listing: the bytes are counted by the pass, never kept
      }

      @Override
      public void close() {
        // nothing held
      }
    };

    @Override
    public void directory(String path, int mode) {
      // listing
    }

    @Override
    public FileOutput file(String path, int mode) {
      return discard;
    }

    @Override
    public void hardLink(String path, String target) {
      // listing
    }

    @Override
    public void symbolicLink(String path, String target) {
      // listing
    }

    @Override
    public void finish() {
      // listing
    }
  };

  /** Creates a directory with the archive's permission bits. */
  void directory(String path, int mode);

  /** Opens a new file for the entry's bytes. */
  FileOutput file(String path, int mode);

  /** Creates a hard link to an earlier file. */
  void hardLink(String path, String target);

  /** Creates a symbolic link whose target was checked to resolve inside. */
  void symbolicLink(String path, String target);

  /** Completes the pass (applies directory permissions). */
  void finish();
}
