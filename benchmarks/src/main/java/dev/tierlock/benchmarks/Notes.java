package dev.tierlock.benchmarks;

/** The report's closing notes: how each number is measured, and what this module is. */
final class Notes {

  private Notes() {}

  static void append(StringBuilder out) {
    out.append("""
        ## How it is measured

        - **Contended runs** (`ContendedRun`): N writer threads start together; each commits as fast as it can, every \
        change a name of its own (`@bench/w<writer>-c<n>`) with a value of its own. Commits acknowledged inside the \
        window after a warm-up give commits/s and commits per writer; latency percentiles (nearest rank) are those of \
        every commit started inside the window. A writer still in a commit when the window closes may finish it \
        within 2 s, then is interrupted: its commit counts in the latencies at the time it had taken (a lower \
        bound), and a failure the interruption causes is not counted as an error. Every acknowledged change, warm-up included, is then looked up in the final lockfile: a \
        missing one is lost. Errors are counted by the exception's `code()`.
        - **Tierlock writers** use the public API with core's defaults (lock waits 1 s doubling to 8 s, 60 s maximum; \
        120 s deadline; daemon heartbeats; real clock and sleeps). Each checkout passes the datastore self-check before \
        the run.
        - **The baseline protocol** (`UploadProtocol`, `BaselineLock`) is the original tool's over the same SPI: a \
        create-only lock object, GET, an unconditional PUT, an unconditional delete of the lock; while the lock is \
        held, one read to judge it stale and a wait drawn in [1 s, min(8 s, 1 s x 2^attempt)], `lock_timeout` after \
        60 s. The original also heads the lock in its stale check and reads it before the release: two calls this \
        baseline does not make. It edits the lockfile as a Jackson tree and writes its copy into its checkout first, \
        as the original edits its cached copy.
        - **Ceilings**: one commit at a time at 4 round trips (lock, read, write, unlock) is 1/(4 RTT); at 1 round \
        trip (a warm optimistic publish) 1/RTT. RTT is half the median time of an unconditional \
        PUT and a GET of a small lockfile through the SPI on a fresh store, after a second of warm-up, measured in \
        the run (a probe of one call kind alone misleads: S3Proxy answers a HEAD or a one-byte GET slower than a \
        commit's own calls).
        - **Local bytes** per put: Linux's per-thread `wchar` (bytes passed to `write`/`pwrite`) of the putting \
        thread, every datastore call moved to another thread (`OffThreadDatastore`); it counts files written and \
        then deleted (the pending record, temp files) too, which walking the directory afterwards would miss.
        - **Start-up** (`StartupSection`): wall time around the process, CPU time from the shell's `times`, each \
        JVM given to the launcher as `JAVA_HOME` and its cache directory (`XDG_CACHE_HOME`) fresh per JVM; whatever \
        archive the launcher writes there is named in the section. The hello-world is compiled for Java 17 and run \
        by the same JVM as the cases it is set against.
        - **Calls per commit** (sections 2 to 4 and 7): the testkit's `CountingDatastore` between the writers and \
        the store, reset once every writer passed its self-check; every call until the last writer returned, the \
        failed attempts' included, divided by the acknowledged commits.
        - **Commit modes**: every value of `CommitMode` in this build is measured, in its order (`Protocol.MODES`), \
        as separate checkouts on every store, in the call counts, the durable-work counts and the pinned installs.
        - **Durable work** (`DurableWork`): `strace -f` around a child JVM (`DurableWorkChild`, one writer on the \
        filesystem datastore, `-XX:-UsePerfData`); the calls between the two marks the child leaves around its N \
        puts (the unlink of a file of each mark's name, `StraceLog`), over N. Where strace cannot run, the section \
        says so and counts nothing.
        - **Convergence** (`ConvergeScale`): the public `Converger` on a `FakeRemote` with latency, entries and \
        archives planted; each pass bounded, never waited on past its bound.
        - **JMH** (1.37): one fork per benchmark, average time; the forks run on this jar's class path.

        ## This module

        - Not part of the test suite: it holds no tests, `mvn verify` only compiles and packages it, and CI runs \
        nothing from it. Nothing here is published (`maven.install.skip`, `maven.deploy.skip`).
        - It runs on the class path, with no `module-info.java`: JMH 1.37 starts each benchmark in a forked JVM as \
        `java <jvm args> -cp <the host's java.class.path> org.openjdk.jmh.runner.ForkedMain` and has no module-path \
        launch, so started from the module path (where `java.class.path` is empty) the fork finds neither JMH nor \
        the benchmarks; its generated code (`*.jmh_generated`) also needs the benchmark and state classes public. \
        And S3Proxy's and Google's jars split packages, so only part of the libraries could go on a module path \
        anyway. The other modules' descriptors are proven by the CLI's module-path test.
        - S3Proxy and google-cloud-storage share this JVM only here: the pom pins their common dependencies \
        (OpenTelemetry, Woodstox, Error Prone annotations) to the newer versions, in this module alone.
        - `--quick` runs every part with short windows and bounds (a few minutes); `--only calls,fake,...` runs some \
        parts (`calls, fake, long, s3, gcs, fs, codec, put, local, start, durable, pinned, converge`); `--out DIR` \
        writes the report elsewhere.
        """);
  }
}
