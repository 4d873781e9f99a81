package dev.tierlock.install;

import dev.tierlock.Tierlock;
import dev.tierlock.archive.ArchiveLimits;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Converges one checkout's installed extensions to the shared lockfile, from the tier's archives
 * alone: it reads only the shared lockfile, the archive store and its own state, never calls a
 * registry, never writes the lockfile or the tier, and never throws for what one entry does (see
 * {@link ConvergeReport}).
 *
 * <pre>{@code
 * Converger converger = Converger.builder(tierlock, layout).build();
 * ConvergeReport report = converger.converge();
 * }</pre>
 *
 * <p><b>The gate.</b> A pass finishes interrupted installs first (recovery), then reads the shared
 * lockfile by one conditional read: when it is the one the last pass converged to and no retry is
 * due, that is the whole pass ({@link ConvergeReport.Outcome#UNCHANGED}; not-modified costs no download).
 * {@link #convergeIfChanged(String)} costs no request at all when the caller already knows the
 * version. An absent or unparseable lockfile is reported and touches nothing. A state written for
 * another datastore or namespace, or a state that does not validate, means one full pass.
 *
 * <p><b>The restore rule.</b> An entry is restored from its archive when its files are missing,
 * when it pins an exact version the installed manifest does not have, or when its checksum is not
 * the one this checkout last verified and the files' digest is not its {@code filesChecksum}. A
 * digest that matches records the entry as verified. Only files under the extension's own root
 * count there: skills, bundles and nested extensions' roots are left out, so checkouts whose tools
 * lay skills out differently never swap each other's files back and forth. An extension this
 * checkout had verified that the lockfile no longer has is removed, unless it was edited locally.
 *
 * <p><b>Local edits are never discarded silently</b> ({@link Edits#KEEP}, the default). Files edited
 * at the pinned version are kept as they are, with a warning. A restore that must replace files (a
 * newer pin, a moved pin, missing files) first compares everything it would replace, skills,
 * {@code ._*} files and bundle roots included, with what this checkout last verified or restored;
 * files that differ, or that this checkout never verified, are copied under {@code
 * <state>/kept-edits/<@scope>/<name>/<version>-<id>/} ({@code root/}, {@code bundles/<prefix>/})
 * before the swap, the pass warns once with the place, and {@link #status()} names it while it is
 * there; when the copy fails nothing is replaced (the restore is retried). Nested extensions' roots
 * are never replaced by their parent's restore: they travel into the new root as they are, and
 * their own entries judge them. {@link Edits#REPLACE} ({@code converge --force}) replaces edits
 * instead, and removes an edited extension the lockfile dropped.
 *
 * <p><b>Failures.</b> A restore that fails for a passing reason is tried again after 1 minute,
 * doubling up to 1 hour, jittered ({@link ConvergeReport.Pending}); one that cannot succeed (no
 * archive in the tier, tampered, over a cap, hostile, another manifest, refused by the safety
 * analysis) is {@link ConvergeReport.Unrestorable} until its entry changes or {@link
 * #convergeFully()} is asked for.
 *
 * <p><b>Many entries.</b> A pass prepares its restores (download, verify, extract into staging)
 * up to {@link Builder#parallelRestores} at once on worker threads, and applies them one by one in
 * the lockfile's order under the lock, each as soon as it and those before it are ready: it takes
 * the lock once the first is prepared (a pass of one restore downloads it with no lock held), and
 * the workers go on with the next ones meanwhile. Under the lock it waits for one restore at most
 * {@link #LONGEST_WAIT_UNDER_LOCK}, then leaves the rest to the next pass. A crash mid-pass is
 * recovered as any interrupted install is.
 * A pass with nothing to do reads the first line of its state alone, whatever the number of
 * entries.
 *
 * <p><b>Concurrency.</b> Calls on one checkout in one process share one pass in flight (a caller
 * that joins one tells the Tierlock's {@link dev.tierlock.Environment#queueing()} hook). Across
 * processes, and against installs, the pass takes the checkout's pulled-extensions lock without
 * waiting, and reports {@link ConvergeReport.Outcome#BUSY} when it is held.
 *
 * <p>Thread-safe.
 */
public final class Converger {

  private static final Logger LOG = LoggerFactory.getLogger(Converger.class);

  /** The wait before the first retry of a failed restore. */
  public static final Duration FIRST_RETRY = Duration.ofMinutes(1);

  /** The longest wait between retries of a failed restore. */
  public static final Duration LAST_RETRY = Duration.ofHours(1);

  /**
   * The longest a pass, holding the checkout's pulled-extensions lock, waits for one restore to be
   * prepared (by its clock): past it the pass stops there, commits what it applied and leaves the rest
   * pending, due again at once, so that a stalled download never holds the lock for as long as the
   * store's read timeout; the next pass waits for that restore with no lock held.
   */
  public static final Duration LONGEST_WAIT_UNDER_LOCK = Duration.ofSeconds(30);

  /** Passes in flight, per state file, in this class loader. */
  private static final ConcurrentHashMap<Path, InFlight> IN_FLIGHT = new ConcurrentHashMap<>();

  private final Tierlock tierlock;
  private final ConvergeWork steps;
  private final Clock clock;
  private final RandomGenerator random;
  private final Path stateFile;
  private final String base;
  private final Edits edits;
  private final int parallelRestores;

  /** The most restores a pass prepares at once, whatever the builder is told. */
  public static final int MAX_PARALLEL_RESTORES = 64;

  /** What a pass does with local edits. */
  public enum Edits {
    /**
     * Keeps them (the default): files edited at the pinned version stay as they are; files a
     * restore must replace are copied under the state directory first; an edited extension the
     * lockfile dropped is left in place. Each is said once in the warnings.
     */
    KEEP,
    /**
     * Replaces them with what the lockfile pins, keeping no copy, and removes an edited extension
     * the lockfile dropped ({@code converge --force}).
     */
    REPLACE
  }

  private Converger(Builder b) {
    this.tierlock = b.tierlock;
    this.edits = b.edits;
    this.clock = b.settings.clock();
    this.random = b.random;
    this.parallelRestores = b.parallelRestores > 0 ? b.parallelRestores
        : defaultParallelRestores(b.tierlock.datastore().identity().scheme(), Runtime.getRuntime().availableProcessors());
    EngineSettings settings = b.settings;
    SafetyAnalyzer safety = settings.safety();
    if (safety != null && parallelRestores > 1) {
      // restores are prepared on several threads; the embedder's analysis is still called one at a time
      settings = settings.withSafety(oneAtATime(safety));
    }
    this.steps = new ConvergeWork(InstallEngine.converging(b.tierlock, b.layout, settings));
    this.stateFile = b.tierlock.stateDirectory().resolve(StateCodec.FILE);
    this.base = b.tierlock.datastore().identity() + " namespace " + b.tierlock.namespace();
  }

  /**
   * Starts building the converger of {@code tierlock}'s checkout, whose extensions are laid out as
   * {@code layout} says.
   *
   * @param tierlock the checkout
   * @param layout where its extensions live
   * @return a builder: {@link ArchiveLimits#DEFAULTS}, no safety analysis, the system UTC clock
   */
  public static Builder builder(Tierlock tierlock, ExtensionLayout layout) {
    return new Builder(tierlock, layout);
  }

  /**
   * Runs one pass behind the gate: one conditional read of the shared lockfile; the rest only when
   * it changed since the last pass, or a retry is due, or an install was interrupted.
   *
   * @return what the pass did
   */
  public ConvergeReport converge() {
    return shared(ConvergePass.Mode.GATED, null);
  }

  /**
   * Runs one pass unless the last pass converged to {@code version} and nothing is due, in which
   * case it makes no request at all: for a caller that learnt the version by other means (its own
   * write, a notification).
   *
   * @param version the store's version of the shared lockfile the caller knows
   * @return what the pass did ({@link ConvergeReport.Outcome#UNCHANGED} when nothing was due)
   */
  public ConvergeReport convergeIfChanged(String version) {
    return shared(ConvergePass.Mode.KNOWN, Objects.requireNonNull(version, "version"));
  }

  /**
   * Runs one full pass: every entry's files are checked whatever the gate says, and entries
   * unrestorable so far are tried again (an archive a peer has stored since, for one).
   *
   * @return what the pass did
   */
  public ConvergeReport convergeFully() {
    return shared(ConvergePass.Mode.FULL, null);
  }

  /**
   * Says, per extension, what the last pass left and what the disk holds now, reading the shared
   * lockfile once (no lock, nothing written).
   *
   * @return each entry's status, and each extension the state knows that the lockfile no longer has
   * @throws dev.tierlock.TierlockException if the shared lockfile cannot be read or parsed
   */
  public List<ConvergeStatus> status() {
    return ConvergeStatus.of(this, steps, tierlock);
  }

  /**
   * Makes a poller that converges this checkout on every change of the shared lockfile and tells
   * the embedder to reload; not started.
   *
   * @param options its interval and reload callback
   * @return the poller; {@link ConvergePoller#start()} it, and close it when done
   */
  public ConvergePoller poller(ConvergePoller.Options options) {
    return new ConvergePoller(this, options);
  }

  /** {@return the file the convergence state is kept in} */
  public Path stateFile() {
    return stateFile;
  }

  private ConvergeReport shared(ConvergePass.Mode mode, @Nullable String known) {
    while (true) {
      InFlight mine = new InFlight(mode, new CompletableFuture<>());
      InFlight running = IN_FLIGHT.putIfAbsent(stateFile, mine);
      if (running == null) {
        try {
          ConvergeReport report = measured(mode, known);
          mine.report().complete(report);
          return report;
        } catch (RuntimeException | Error e) {
          mine.report().completeExceptionally(e);
          throw e;
        } finally {
          IN_FLIGHT.remove(stateFile, mine);
        }
      }
      tierlock.environment().queueing().accept("the convergence pass in flight on " + tierlock.checkoutDirectory());
      Optional<ConvergeReport> joined = join(running.report());
      if (joined.isEmpty()) {
        return interrupted();
      }
      if (mode != ConvergePass.Mode.FULL || running.mode() == ConvergePass.Mode.FULL) {
        return joined.get();
      }
      // a full pass was asked for and a gated one was running: that one may have skipped what this
      // caller wants checked, so run a full one once it is done
    }
  }

  /** A pass in flight, and how it was asked for. */
  private record InFlight(ConvergePass.Mode mode, CompletableFuture<ConvergeReport> report) {}

  /** Waits for the pass in flight; empty when this thread is interrupted meanwhile (the flag kept). */
  private static Optional<ConvergeReport> join(CompletableFuture<ConvergeReport> running) {
    try {
      return Optional.of(running.get());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  private ConvergeReport interrupted() {
    return new ConvergeReport(ConvergeReport.Outcome.BUSY, List.of(), List.of(), List.of(), List.of(), List.of(),
        List.of(), List.of("interrupted while waiting for the pass in flight on this checkout: nothing was done"), true,
        0, 0, Optional.empty(), Optional.empty(), 0);
  }

  private ConvergeReport measured(ConvergePass.Mode mode, @Nullable String known) {
    Tierlock.Measured<ConvergePass.Result> measured = Tierlock.measure(() -> new ConvergePass(this, tierlock, steps)
        .run(mode, known));
    ConvergeReport r = measured.value().report();
    if (r.newWarnings()) {
      r.warnings().forEach(w -> LOG.warn("Convergence of {}: {}", tierlock.checkoutDirectory(), w));
    }
    return new ConvergeReport(r.outcome(), r.restored(), r.removed(), r.verified(), r.skipped(), r.pending(),
        r.unrestorable(), r.warnings(), r.newWarnings(), measured.requests() + r.requests(),
        measured.bytes() + r.bytes(), r.lockfileVersion(),
        r.lockfileSha256(), r.restoreGeneration());
  }

  Clock clock() {
    return clock;
  }

  /** {@return how many restores a pass prepares at once} */
  int parallelRestores() {
    return parallelRestores;
  }

  /**
   * Returns how many restores a pass prepares at once by default, for a datastore of URI scheme
   * {@code scheme} on a machine of {@code cores} processors: a restore from a remote store mostly
   * waits for the network, so {@code min(16, 4 x cores)}; one from the local filesystem ({@code
   * file}) mostly waits for the disk and the processors, so {@code min(8, 2 x cores)}.
   */
  static int defaultParallelRestores(String scheme, int cores) {
    int processors = Math.max(1, cores);
    return "file".equals(scheme) ? Math.min(8, 2 * processors) : Math.min(16, 4 * processors);
  }

  /** Returns {@code safety} called by one thread at a time. */
  private static SafetyAnalyzer oneAtATime(SafetyAnalyzer safety) {
    Object lock = new Object();
    return (name, version, stagedRoot) -> {
      synchronized (lock) {
        safety.analyze(name, version, stagedRoot);
      }
    };
  }

  Edits edits() {
    return edits;
  }

  String base() {
    return base;
  }

  /** Returns the wait before retry {@code attempts}: 1 minute doubling up to 1 hour, drawn from its upper three quarters. */
  Duration retryWait(int attempts) {
    synchronized (random) {
      return retryWait(attempts, random);
    }
  }

  /**
   * Returns the wait before retry {@code attempts} (1 or more): the cap is 1 minute doubled per
   * earlier failure, at most 1 hour; the wait is drawn uniformly from the cap's upper quarter down,
   * so peers that failed together spread out and no wait exceeds its cap.
   */
  static Duration retryWait(int attempts, RandomGenerator random) {
    if (attempts < 1) {
      throw new IllegalArgumentException("Cannot wait for retry " + attempts + ": attempts start at 1");
    }
    long cap = FIRST_RETRY.toMillis() << Math.min(attempts - 1, 20);
    cap = Math.min(cap, LAST_RETRY.toMillis());
    return Duration.ofMillis(cap - random.nextLong(cap / 4 + 1));
  }

  /**
   * Reads the header of the state alone; empty when there is none, or it is not valid, or cannot be
   * read (the pass then reads the whole state, which says why).
   */
  Optional<ConvergenceState.Header> loadHeader() {
    try {
      return StateCodec.readHeader(stateFile);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Reads the state; an invalid one is a warning and empty (one full pass). */
  Optional<ConvergenceState> loadState(Collection<String> warnings) {
    try {
      return StateCodec.read(stateFile);
    } catch (StateCodec.InvalidState e) {
      warnings.add("the convergence state " + stateFile + " is not valid (" + e.getMessage() + "): one full pass");
    } catch (IOException e) {
      warnings.add("the convergence state " + stateFile + " cannot be read (" + e + "): one full pass");
    }
    return Optional.empty();
  }

  /** Saves the state; a failure is a warning (the next pass redoes what this one did), and false. */
  boolean saveState(ConvergenceState state, Collection<String> warnings) {
    try {
      StateCodec.write(stateFile, state);
      return true;
    } catch (IOException | RuntimeException e) {
      warnings.add("the convergence state " + stateFile + " could not be saved (" + e + "): the next pass checks again");
      return false;
    }
  }

  @Override
  public String toString() {
    return "Converger[" + tierlock.checkoutDirectory() + "]";
  }

  /** Builds a {@link Converger}. Not thread-safe. */
  public static final class Builder {
    private final Tierlock tierlock;
    private final ExtensionLayout layout;
    private EngineSettings settings = EngineSettings.DEFAULTS;
    private RandomGenerator random = new SecureRandom();
    private Edits edits = Edits.KEEP;
    private int parallelRestores;

    private Builder(Tierlock tierlock, ExtensionLayout layout) {
      this.tierlock = Objects.requireNonNull(tierlock, "tierlock");
      this.layout = Objects.requireNonNull(layout, "layout");
    }

    /**
     * Sets the archive caps restores are held to (default {@link ArchiveLimits#DEFAULTS}).
     *
     * @param value the caps
     * @return this builder
     */
    public Builder archiveLimits(ArchiveLimits value) {
      this.settings = settings.withLimits(value);
      return this;
    }

    /**
     * Sets the safety analysis every restored archive passes (default none: the archive was
     * analysed when it was installed).
     *
     * @param value the analysis
     * @return this builder
     */
    public Builder safetyAnalyzer(SafetyAnalyzer value) {
      this.settings = settings.withSafety(value);
      return this;
    }

    /**
     * Sets the clock of retries and of the staging sweep (default the system UTC clock).
     *
     * @param value the clock
     * @return this builder
     */
    public Builder clock(Clock value) {
      this.settings = settings.withClock(value);
      return this;
    }

    /**
     * Sets what passes do with local edits (default {@link Edits#KEEP}: never discarded; see {@link
     * Edits}).
     *
     * @param value keep or replace them
     * @return this builder
     */
    public Builder edits(Edits value) {
      this.edits = Objects.requireNonNull(value, "edits");
      return this;
    }

    /**
     * Sets how many restores a pass prepares at once (download, verify, extract into staging, on
     * worker threads that go on while the pass applies the ones before); they are still applied one
     * by one, in the lockfile's order, under the pulled-extensions lock. The default is sized to the machine and the store: {@code min(16, 4 x
     * processors)} for a remote store, {@code min(8, 2 x processors)} for the local filesystem. 1
     * prepares them one at a time on the calling thread. With more than 1, the {@link
     * #safetyAnalyzer} is still called by one thread at a time.
     *
     * @param value 1 to {@value Converger#MAX_PARALLEL_RESTORES}
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is out of that range
     */
    public Builder parallelRestores(int value) {
      if (value < 1 || value > MAX_PARALLEL_RESTORES) {
        throw new IllegalArgumentException("Cannot prepare " + value + " restores at once: give 1 to "
            + MAX_PARALLEL_RESTORES);
      }
      this.parallelRestores = value;
      return this;
    }

    /**
     * Sets the source of retry jitter (default a {@link SecureRandom}).
     *
     * @param value the source
     * @return this builder
     */
    public Builder random(RandomGenerator value) {
      this.random = Objects.requireNonNull(value, "random");
      return this;
    }

    /**
     * Sets the hook told the name of each crash boundary the restores and removals of a pass, and
     * its recovery, pass (a test seam, as a ticker is for time; by default none): the swap and
     * recovery boundaries {@link Installer.Builder#boundaries} lists, such as {@code
     * journal-written}, {@code moved-in/0}, {@code manifest-in}, {@code journal-swapped} and {@code
     * commit/journal-deleted}. The hook runs on the pass's thread while it holds the
     * pulled-extensions lock. A hook that throws fails the step after it, as an I/O failure there
     * would (the pass reports it); a hook that never returns holds the pass there.
     *
     * @param hook told each boundary's name as it is passed
     * @return this builder
     */
    public Builder boundaries(Consumer<String> hook) {
      Objects.requireNonNull(hook, "boundaries");
      this.settings = settings.withBoundaries(hook::accept);
      return this;
    }

    /** {@return the converger} */
    public Converger build() {
      return new Converger(this);
    }
  }
}
