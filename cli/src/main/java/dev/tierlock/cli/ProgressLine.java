package dev.tierlock.cli;

import dev.tierlock.TierPath;
import dev.tierlock.spi.ObjectKey;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;

/**
 * The progress of long work on a terminal (a convergence or install of many extensions, a
 * self-check, a collection): one line on stderr, updated in place with every datastore call, that
 * counts the calls and the bytes moved and names what the current one is about (an extension, the
 * lockfile, the lock, a self-check probe); cleared when the command ends. Only on a terminal:
 * {@code TIERLOCK_PROGRESS} is {@code always}, {@code never}, or {@code auto} (the default: when the
 * JVM has a console, and so not on a pipe); never with {@code -v}, whose lines say more. Thread-safe.
 */
final class ProgressLine {

  /** The environment variable that turns the line on ({@code always}), off ({@code never}) or to {@code auto}. */
  static final String VARIABLE = "TIERLOCK_PROGRESS";

  private static final String ERASE = "\r\033[K";

  private final PrintWriter err;
  private long calls;
  private long bytes;
  private boolean shown;

  private ProgressLine(PrintWriter err) {
    this.err = err;
  }

  /**
   * Returns the progress line on {@code err} if the environment, the console and the verbosity ask
   * for one, or {@code null}.
   *
   * @throws IllegalArgumentException ({@code invalid_input}) if {@code TIERLOCK_PROGRESS} is none of its values
   */
  static ProgressLine of(Map<String, String> environment, boolean console, int verbosity, PrintWriter err) {
    String mode = environment.getOrDefault(VARIABLE, "auto").toLowerCase(Locale.ROOT);
    boolean on = switch (mode) {
      case "always" -> true;
      case "never" -> false;
      case "auto", "" -> console;
      default -> throw new IllegalArgumentException("Cannot read " + VARIABLE + "=" + mode + ": give always, never"
          + " or auto");
    };
    return on && verbosity == 0 ? new ProgressLine(err) : null;
  }

  /** Counts one call on {@code key} that moved {@code moved} bytes, and shows the line. */
  synchronized void call(ObjectKey key, long moved) {
    calls++;
    bytes += Math.max(0, moved);
    err.print(ERASE + "tierlock: " + calls + " request" + (calls == 1 ? "" : "s") + ", " + size(bytes) + ": "
        + about(key));
    err.flush();
    shown = true;
  }

  /** Clears the line, if it was shown. */
  synchronized void clear() {
    if (shown) {
      err.print(ERASE);
      err.flush();
      shown = false;
    }
  }

  /**
   * Returns {@code out}, but clearing the progress lines {@code lines} gives before each write: a
   * command's output on a terminal starts at the start of a line, not after the progress.
   */
  static PrintWriter clearing(PrintWriter out, Iterable<ProgressLine> lines) {
    return new PrintWriter(out, true) {
      @Override
      public void write(int c) {
        lines.forEach(ProgressLine::clear);
        super.write(c);
      }

      @Override
      public void write(char[] buf, int off, int len) {
        lines.forEach(ProgressLine::clear);
        super.write(buf, off, len);
      }

      @Override
      public void write(String s, int off, int len) {
        lines.forEach(ProgressLine::clear);
        super.write(s, off, len);
      }
    };
  }

  /** {@return what a call on {@code key} is about: an extension, the lockfile, the lock, a probe, or the key} */
  static String about(ObjectKey key) {
    String value = key.value();
    int archives = value.indexOf(TierPath.ARCHIVES + "/");
    if (archives >= 0) {
      String[] parts = value.substring(archives + TierPath.ARCHIVES.length() + 1).split("/");
      return parts.length >= 2 ? parts[0] + "/" + parts[1] : value;
    }
    if (value.endsWith(TierPath.LOCKFILE.value())) {
      return "the shared lockfile";
    }
    if (value.endsWith(".datastore.lock")) {
      return "the global lock";
    }
    if (value.contains(".tierlock-selfcheck/")) {
      return "self-check " + key.name();
    }
    return value;
  }

  /** {@return {@code n} bytes as people read them: 512 B, 1.5 KiB, 3.2 MiB} */
  static String size(long n) {
    if (n < 1024) {
      return n + " B";
    }
    double value = n;
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }
}
