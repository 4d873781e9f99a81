package dev.tierlock.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The command line's one voice on stderr: what the library logs and what the commands say, each
 * line {@code tierlock: ...} ({@code tierlock: warning: ...} for a warning), a warning said once per
 * run however many times it is logged or reported. It is the command line's SLF4J provider: without
 * {@code -v} it says warnings and errors, and the one line of a wait on the global lock; with
 * {@code -v} what the library does (info) and how a wait on the global lock goes; with {@code -vv}
 * its debug lines too. Convergence's
 * warnings are in the report its commands print, so they are said only with {@code -v}.
 */
public final class Voice implements SLF4JServiceProvider {

  /** How much is said: 0 by default, 1 with {@code -v}, 2 with {@code -vv}. */
  private static volatile int verbosity;

  /** The warnings said in this run, so that none is said twice. */
  private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

  /** Where the library's lines go: the process's stderr. */
  private static volatile PrintStream err = System.err;

  private final BasicMarkerFactory markers = new BasicMarkerFactory();
  private final NOPMDCAdapter mdc = new NOPMDCAdapter();

  /** A provider for SLF4J's service loader. */
  public Voice() {}

  /** {@return how much this run says: 0 by default, 1 with {@code -v}, 2 with {@code -vv}} */
  static int verbosity() {
    return verbosity;
  }

  /** Starts a run: how much to say, and no warning said yet. */
  static void start(int level) {
    start(level, System.err);
  }

  /** Starts a run that says the library's lines on {@code to}. */
  static void start(int level, PrintStream to) {
    verbosity = level;
    err = to;
    SAID.clear();
  }

  /**
   * Says a warning on {@code err}, unless this run said it already (the library logs some of the
   * warnings a result reports).
   */
  static void warn(PrintWriter err, String warning) {
    if (SAID.add(warning)) {
      err.println("tierlock: warning: " + lowerFirst(warning));
      err.flush();
    }
  }

  /** {@return {@code text} with its first letter lowercase, unless the second is uppercase too (an acronym)} */
  static String lowerFirst(String text) {
    if (text.length() > 1 && Character.isUpperCase(text.charAt(0)) && !Character.isUpperCase(text.charAt(1))) {
      return text.substring(0, 1).toLowerCase(Locale.ROOT) + text.substring(1);
    }
    return text;
  }

  @Override
  public org.slf4j.ILoggerFactory getLoggerFactory() {
    return Said::new;
  }

  @Override
  public org.slf4j.IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public org.slf4j.spi.MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {
    // nothing to set up: the state is static, set by start
  }

  /** One logger: a name and the rules above. */
  static final class Said extends LegacyAbstractLogger {

    private static final long serialVersionUID = 1L;

    Said(String name) {
      this.name = name;
    }

    /** Whether this logger's lines of {@code level} are said at the current verbosity. */
    private boolean says(Level level) {
      // a wait on the global lock, or on the checkout's transaction lock, is said once, naming its holder
      boolean lease = name.startsWith("dev.tierlock.Lease") || name.equals("dev.tierlock.CheckoutLock");
      boolean converge = name.startsWith("dev.tierlock.install.Conver");
      return switch (level) {
        case ERROR -> true;
        case WARN -> !converge || verbosity >= 1;
        case INFO -> lease || verbosity >= 1;
        case DEBUG -> verbosity >= 2 || (lease && verbosity >= 1);
        case TRACE -> false;
      };
    }

    @Override
    public boolean isTraceEnabled() {
      return says(Level.TRACE);
    }

    @Override
    public boolean isDebugEnabled() {
      return says(Level.DEBUG);
    }

    @Override
    public boolean isInfoEnabled() {
      return says(Level.INFO);
    }

    @Override
    public boolean isWarnEnabled() {
      return says(Level.WARN);
    }

    @Override
    public boolean isErrorEnabled() {
      return says(Level.ERROR);
    }

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
        Throwable throwable) {
      String text = MessageFormatter.basicArrayFormat(pattern, arguments);
      if (throwable != null) {
        text += " (" + throwable + ")";
      }
      String line = switch (level) {
        case ERROR -> "tierlock: error: " + lowerFirst(text);
        case WARN -> SAID.add(text) ? "tierlock: warning: " + lowerFirst(text) : null;
        default -> "tierlock: " + lowerFirst(text);
      };
      if (line != null) {
        PrintStream to = err;
        synchronized (to) {
          to.println(line);
          if (throwable != null && verbosity >= 2) {
            throwable.printStackTrace(to);
          }
          to.flush();
        }
      }
    }
  }
}
