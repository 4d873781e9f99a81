package dev.tierlock.internal;

import org.jspecify.annotations.Nullable;

/**
 * Counts the work the lockfile codec does on the calling thread while a tally is open: lockfiles
 * parsed, members decoded from their bytes, entries formatted as JSON, and lockfiles assembled into
 * bytes. It lets a test prove the structure of a change (one parse of the bytes fetched, one entry
 * formatted, every other member copied) without timing anything. While no tally is open, counting
 * costs one read of a volatile field. Internal; a tally belongs to the thread that opened it.
 *
 * <pre>{@code
 * try (CodecTally tally = CodecTally.open()) {
 *   checkout.put("@acme/web", "2.0.0");
 *   assertThat(tally.parses()).isEqualTo(1);
 * }
 * }</pre>
 */
public final class CodecTally implements AutoCloseable {

  private static final ThreadLocal<CodecTally> OPEN = new ThreadLocal<>();
  private static volatile int opened;

  private final Thread owner = Thread.currentThread();
  private int parses;
  private int decodes;
  private int formats;
  private int assemblies;
  private long assembledBytes;

  private CodecTally() {}

  /**
   * Opens a tally on the calling thread.
   *
   * @return the tally, counting until closed
   * @throws IllegalStateException if this thread has one open already
   */
  public static synchronized CodecTally open() {
    if (OPEN.get() != null) {
      throw new IllegalStateException("Cannot open a codec tally: this thread has one open already");
    }
    CodecTally tally = new CodecTally();
    OPEN.set(tally);
    opened++;
    return tally;
  }

  /** Stops counting; the counts stay readable. Closing twice does nothing. */
  @Override
  public synchronized void close() {
    if (Thread.currentThread() == owner && OPEN.get() == this) {
      OPEN.remove();
      opened--;
    }
  }

  private static @Nullable CodecTally current() {
    return opened == 0 ? null : OPEN.get();
  }

  /** Counts one lockfile parsed from bytes (the whole file checked and cut into members). */
  public static void parsed() {
    CodecTally tally = current();
    if (tally != null) {
      tally.parses++;
    }
  }

  /** Counts one member's value decoded from the bytes it was parsed from. */
  public static void decoded() {
    CodecTally tally = current();
    if (tally != null) {
      tally.decodes++;
    }
  }

  /** Counts one entry formatted as JSON text. */
  public static void formatted() {
    CodecTally tally = current();
    if (tally != null) {
      tally.formats++;
    }
  }

  /**
   * Counts one lockfile's bytes assembled from its members' bytes, {@code length} bytes in all.
   *
   * @param length the lockfile's length in bytes
   */
  public static void assembled(int length) {
    CodecTally tally = current();
    if (tally != null) {
      tally.assemblies++;
      tally.assembledBytes += length;
    }
  }

  /** {@return the lockfiles parsed from bytes} */
  public int parses() {
    return parses;
  }

  /** {@return the members decoded from the bytes they were parsed from} */
  public int decodes() {
    return decodes;
  }

  /** {@return the entries formatted as JSON text} */
  public int formats() {
    return formats;
  }

  /** {@return the lockfiles assembled into bytes} */
  public int assemblies() {
    return assemblies;
  }

  /** {@return the bytes of every lockfile assembled, added up} */
  public long assembledBytes() {
    return assembledBytes;
  }

  @Override
  public String toString() {
    return "CodecTally[parses=" + parses + ", decodes=" + decodes + ", formats=" + formats + ", assemblies="
        + assemblies + ", assembledBytes=" + assembledBytes + "]";
  }
}
