package dev.tierlock.archive;

import dev.tierlock.TierlockException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * An archive could not be read, stored, listed, extracted or named. In every case nothing partial
 * was left behind (no unverified bytes in the cache, no files in a staging directory the extractor
 * emptied). The stable {@link #code()} says which case it is, and so what the caller can do next:
 *
 * <table class="striped">
 *   <caption>The codes of archive failures</caption>
 *   <thead><tr><th>code</th><th>what happened</th><th>what to do next</th></tr></thead>
 *   <tbody>
 *   <tr><td>{@value #LIMIT}</td><td>the archive is over one of its caps ({@link ArchiveLimits}); refused
 *       as soon as the excess was seen: before a download when the size was known, otherwise while
 *       streaming ({@link #limit()}, {@link #max()}, {@link #observed()})</td>
 *       <td>nothing; retrying does not help</td></tr>
 *   <tr><td>{@value #REJECTED}</td><td>the archive holds a hostile or unsupported entry and was refused
 *       as a whole ({@link #entry()}, {@link #rule()})</td><td>nothing; retrying does not help</td></tr>
 *   <tr><td>{@value #CORRUPT}</td><td>not a well-formed {@code .tar.gz}: not gzip, not tar, truncated,
 *       headers declaring more data than it holds, data after its end</td><td>nothing; retrying does not help</td></tr>
 *   <tr><td>{@value #TAMPERED}</td><td>the bytes offered for, or found under, a key do not hash to the
 *       key's SHA-256 ({@link #key()}, {@link #actual()}); they were discarded, nothing was cached or
 *       uploaded</td><td>repair the tier (storing the right bytes replaces an object of another size), then
 *       retry</td></tr>
 *   <tr><td>{@value #MISSING}</td><td>a lockfile entry cannot be restored from the tier: it has no
 *       checksum, or the tier holds no object for the archive it pins; nothing was downloaded</td><td>store the
 *       archive again from a checkout that has its bytes (an install, a backfill); retrying the restore
 *       alone does not help</td></tr>
 *   <tr><td>{@value #IO}</td><td>a local file or directory (the cache, a staging directory, an archive
 *       file the caller named) could not be read or written; what the message names was left as it was,
 *       or removed when partial</td><td>fix the local problem (space, permissions), then retry</td></tr>
 *   <tr><td>{@value #TIMEOUT}</td><td>a read did not finish within its deadline ({@link #timeout()});
 *       the partial download was discarded</td><td>retry later</td></tr>
 *   <tr><td>{@value #CANCELLED}</td><td>the thread was interrupted while reading or storing; the partial
 *       bytes were discarded and the interrupt flag is set again</td><td>stop, as the interrupt asked</td></tr>
 *   <tr><td>{@value #INVALID_KEY}</td><td>a name and digest do not form a valid {@link
 *       ExtensionArchiveKey}; nothing was changed</td><td>fix the input</td></tr>
 *   </tbody>
 * </table>
 *
 * <p>One type for every case, because a caller acts on the code (convergence, for one, retries a
 * timeout and gives up on a tampered archive until its entry changes) and no case needs another
 * handling than its code; a datastore call's own failure stays a {@link
 * dev.tierlock.spi.DatastoreException}. Immutable once thrown.
 */
public final class ArchiveException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The code of an archive over one of its caps. */
  public static final String LIMIT = "archive_limit";

  /** The code of an archive that holds a hostile or unsupported entry. */
  public static final String REJECTED = "archive_rejected";

  /** The code of bytes that are not a well-formed {@code .tar.gz}. */
  public static final String CORRUPT = "archive_corrupt";

  /** The code of bytes that do not hash to their key. */
  public static final String TAMPERED = "archive_tampered";

  /** The code of an entry the tier cannot restore: no checksum, or no object for it. */
  public static final String MISSING = "archive_missing";

  /** The code of a local file or directory that could not be read or written. */
  public static final String IO = "archive_io";

  /** The code of a read past its deadline. */
  public static final String TIMEOUT = "archive_timeout";

  /** The code of a read or store whose thread was interrupted. */
  public static final String CANCELLED = "archive_cancelled";

  /** The code of a name and digest that are not an archive key. */
  public static final String INVALID_KEY = "invalid_archive_key";

  /** What the archive was: its key ({@code <name>@<sha256>}) or its file. */
  private final String source;
  /** The cap that was exceeded ({@value #LIMIT} only). */
  private final @Nullable Limit limit;
  /** The cap's value ({@value #LIMIT} only). */
  private final long max;
  /** The value seen when the archive was refused ({@value #LIMIT} only). */
  private final long observed;
  /** The refused entry's name as the archive holds it ({@value #REJECTED} only). */
  private final @Nullable String entry;
  /** The rule the refused entry broke ({@value #REJECTED} only). */
  private final @Nullable Rule rule;
  /** The archive's key ({@value #TAMPERED} and {@value #TIMEOUT}). */
  private final transient @Nullable ExtensionArchiveKey key;
  /** The SHA-256 of the bytes seen ({@value #TAMPERED} only). */
  private final @Nullable String actual;
  /** The deadline the read was given ({@value #TIMEOUT} only). */
  private final @Nullable Duration timeout;

  private ArchiveException(Builder b) {
    super(b.code, b.message, b.cause);
    this.source = b.source;
    this.limit = b.limit;
    this.max = b.max;
    this.observed = b.observed;
    this.entry = b.entry;
    this.rule = b.rule;
    this.key = b.key;
    this.actual = b.actual;
    this.timeout = b.timeout;
  }

  /**
   * {@return the failure of an archive over one of its caps ({@value #LIMIT})} For code that
   * streams archive bytes itself, such as a download from a registry.
   *
   * @param source the archive's key or file
   * @param limit the cap that was exceeded
   * @param max the cap's value
   * @param observed the value seen (for streamed measures, the count when the cap was crossed)
   */
  public static ArchiveException limit(String source, Limit limit, long max, long observed) {
    Builder b = new Builder(LIMIT, source, "Cannot accept archive " + source + ": " + limit.what() + " exceeds the cap "
        + limit.name() + " of " + max + " " + limit.unit() + " (" + observed + " " + limit.unit() + " seen)");
    b.limit = limit;
    b.max = max;
    b.observed = observed;
    return new ArchiveException(b);
  }

  /**
   * {@return the failure of bytes that do not hash to {@code key} ({@value #TAMPERED})} For code
   * that verifies archive bytes itself, such as a download from a registry.
   *
   * @param key the archive's key, which holds the expected digest
   * @param actual the SHA-256 of the bytes seen
   * @param verb what was being done, such as {@code read} or {@code store}
   * @param where where the bytes came from, such as {@code s3://bucket/prefix}
   */
  public static ArchiveException tampered(ExtensionArchiveKey key, String actual, String verb, String where) {
    Builder b = new Builder(TAMPERED, key.toString(), "Cannot " + verb + " archive " + key + ": the bytes from " + where
        + " have SHA-256 " + actual + ", expected " + key.sha256() + "; they were discarded");
    b.key = key;
    b.actual = actual;
    return new ArchiveException(b);
  }

  /** Returns the failure of an archive holding a hostile or unsupported {@code entry} ({@value #REJECTED}). */
  static ArchiveException rejected(String source, String entry, Rule rule, String detail) {
    Builder b = new Builder(REJECTED, source, "Cannot accept archive " + source + ": entry \"" + Printable.of(entry)
        + "\" breaks the rule " + rule.name() + " (" + rule.description() + ")" + (detail.isEmpty() ? "" : "; "
        + detail));
    b.entry = entry;
    b.rule = rule;
    return new ArchiveException(b);
  }

  /** Returns the failure of bytes that are not a well-formed {@code .tar.gz} ({@value #CORRUPT}). */
  static ArchiveException corrupt(String source, String reason, @Nullable Throwable cause) {
    return new ArchiveException(new Builder(CORRUPT, source, "Cannot read archive " + source
        + ": not a well-formed tar.gz (" + reason + ")").cause(cause));
  }

  /** Returns the failure of an entry the tier cannot restore ({@value #MISSING}). */
  static ArchiveException missing(String source, String reason) {
    return new ArchiveException(new Builder(MISSING, source, "Cannot restore archive " + source + ": " + reason));
  }

  /** Returns the failure of a local file or directory ({@value #IO}); {@code message} is {@code Cannot <verb> <path>: ...}. */
  static ArchiveException io(String source, String message, Throwable cause) {
    return new ArchiveException(new Builder(IO, source, message).cause(cause));
  }

  /** Returns the failure of a read of {@code key} past {@code timeout} ({@value #TIMEOUT}). */
  static ArchiveException timeout(ExtensionArchiveKey key, Duration timeout) {
    Builder b = new Builder(TIMEOUT, key.toString(), "Cannot read archive " + key + ": the read did not finish within "
        + timeout.toMillis() + " ms; nothing was cached");
    b.key = key;
    b.timeout = timeout;
    return new ArchiveException(b);
  }

  /**
   * Returns the failure of a read or store whose thread was interrupted ({@value #CANCELLED}), and
   * sets the current thread's interrupt flag again.
   */
  static ArchiveException cancelled(String source, String verb, @Nullable Throwable cause) {
    ArchiveException failure = new ArchiveException(new Builder(CANCELLED, source, "Cannot " + verb + " archive "
        + source + ": the thread was interrupted; nothing was cached").cause(cause));
    Thread.currentThread().interrupt();
    return failure;
  }

  /** Returns the failure of {@code name} and {@code sha256}, which are not an archive key ({@value #INVALID_KEY}). */
  static ArchiveException invalidKey(String name, String sha256, String reason, @Nullable Throwable cause) {
    return new ArchiveException(new Builder(INVALID_KEY, name + "@" + sha256, "Cannot use archive key \""
        + Printable.of(name) + "\" with SHA-256 \"" + Printable.of(sha256) + "\": " + reason).cause(cause));
  }

  /**
   * {@return what the archive was: its key ({@code <name>@<sha256>}) or its file; for {@value
   * #INVALID_KEY}, the rejected name and digest as given (possibly holding control characters),
   * joined by {@code @}}
   */
  public String source() {
    return source;
  }

  /** {@return the cap that was exceeded; present exactly for {@value #LIMIT}} */
  public Optional<Limit> limit() {
    return Optional.ofNullable(limit);
  }

  /** {@return the value of the cap that was exceeded; present exactly for {@value #LIMIT}} */
  public OptionalLong max() {
    return limit == null ? OptionalLong.empty() : OptionalLong.of(max);
  }

  /**
   * {@return the value seen when the archive was refused (for streamed measures, the count when the
   * cap was crossed); present exactly for {@value #LIMIT}}
   */
  public OptionalLong observed() {
    return limit == null ? OptionalLong.empty() : OptionalLong.of(observed);
  }

  /**
   * {@return the refused entry's name as the archive holds it (possibly holding control
   * characters); present exactly for {@value #REJECTED}}
   */
  public Optional<String> entry() {
    return Optional.ofNullable(entry);
  }

  /** {@return the rule the refused entry broke; present exactly for {@value #REJECTED}} */
  public Optional<Rule> rule() {
    return Optional.ofNullable(rule);
  }

  /**
   * {@return the archive's key, whose SHA-256 is the one expected; present for {@value #TAMPERED}
   * and {@value #TIMEOUT}}
   */
  public Optional<ExtensionArchiveKey> key() {
    return Optional.ofNullable(key);
  }

  /** {@return the SHA-256 expected, the key's; present exactly for {@value #TAMPERED}} */
  public Optional<String> expected() {
    return actual == null || key == null ? Optional.empty() : Optional.of(key.sha256());
  }

  /** {@return the SHA-256 of the bytes seen; present exactly for {@value #TAMPERED}} */
  public Optional<String> actual() {
    return Optional.ofNullable(actual);
  }

  /** {@return the deadline the read was given; present exactly for {@value #TIMEOUT}} */
  public Optional<Duration> timeout() {
    return Optional.ofNullable(timeout);
  }

  /** The cap a failure {@value ArchiveException#LIMIT} reports ({@link ArchiveException#limit()}). */
  public enum Limit {
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

    Limit(String what, String unit) {
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

  /**
   * The rule a hostile or unsupported entry broke, which a failure {@value ArchiveException#REJECTED}
   * reports ({@link ArchiveException#rule()}).
   */
  public enum Rule {
    /** An entry has an empty name. */
    EMPTY_NAME("an entry has a name"),
    /** A name or link target holds NUL or another control character. */
    CONTROL_CHARACTER("names and link targets hold no NUL or control character"),
    /** A name or link target is not valid UTF-8. */
    INVALID_ENCODING("names and link targets are valid UTF-8"),
    /** A name or link target holds a backslash (a separator on Windows). */
    BACKSLASH("names and link targets hold no backslash"),
    /** A name is absolute: a leading {@code /} or a Windows drive such as {@code C:}. */
    ABSOLUTE_PATH("entry names are relative: no leading '/' and no drive letter"),
    /** A name holds a {@code ..} segment. */
    PARENT_REFERENCE("entry names hold no '..' segment"),
    /** A name segment is longer than filesystems accept. */
    SEGMENT_TOO_LONG("a name segment has at most 255 bytes of UTF-8"),
    /** A non-directory entry names the archive root ({@code ./}). */
    ROOT_ENTRY("only a directory may name the archive root"),
    /** A path appears twice, or names a directory that earlier entries implied. */
    DUPLICATE("each path appears once"),
    /** An entry lies under a path that an earlier entry made a file. */
    PARENT_NOT_DIRECTORY("an entry's parent is a directory, not a file"),
    /** An entry lies under a symbolic link of the archive. */
    THROUGH_SYMLINK("no entry lies under a symbolic link"),
    /** A link target is absolute. */
    ABSOLUTE_LINK_TARGET("link targets are relative"),
    /** A link resolves outside the archive root, directly or through other links of the archive. */
    LINK_ESCAPES("links resolve inside the archive"),
    /** A symbolic link does not resolve within a bounded number of steps. */
    LINK_LOOP("symbolic links resolve in at most 40 links and 4096 steps"),
    /** A hard link does not name an earlier regular file of the archive. */
    HARD_LINK_TARGET("a hard link names an earlier regular file of the archive"),
    /** A character device, block device or FIFO. */
    SPECIAL_FILE("no device or FIFO entries"),
    /** A sparse entry (GNU or PAX sparse formats). */
    SPARSE("no sparse entries"),
    /** Any other entry type. */
    UNSUPPORTED_TYPE("entries are regular files, directories, symbolic links or hard links");

    private final String description;

    Rule(String description) {
      this.description = description;
    }

    /** {@return the rule in words, for messages} */
    public String description() {
      return description;
    }
  }

  /** What one failure carries while it is made. */
  private static final class Builder {
    private final String code;
    private final String source;
    private final String message;
    private @Nullable Throwable cause;
    private @Nullable Limit limit;
    private long max;
    private long observed;
    private @Nullable String entry;
    private @Nullable Rule rule;
    private @Nullable ExtensionArchiveKey key;
    private @Nullable String actual;
    private @Nullable Duration timeout;

    Builder(String code, String source, String message) {
      this.code = code;
      this.source = source;
      this.message = message;
    }

    Builder cause(@Nullable Throwable value) {
      this.cause = value;
      return this;
    }
  }
}
