package dev.tierlock.testkit;

import dev.tierlock.ExtensionName;
import dev.tierlock.install.ExtensionRegistry;
import dev.tierlock.install.InstallException;
import dev.tierlock.install.VersionConstraint;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An {@link ExtensionRegistry} for tests: releases published by the test, fault injection, and call
 * counters. Strict: a version must be a plain version ({@code 1.2.0}, {@code 2.0.0-rc.1}), and a
 * range resolves exactly as {@link ExtensionRegistry#directory} resolves it (the same comparator;
 * {@link VersionConstraint#LOCKED} and {@code latest} mean the highest release).
 *
 * <pre>{@code
 * FakeRegistry registry = FakeRegistry.create();
 * registry.publish("@acme/tool", "1.2.0", TestArchives.extension("@acme/tool", "1.2.0").build());
 * registry.offline();                 // every call now throws InstallException registry_unavailable
 * assertThat(registry.resolveCalls()).isZero();
 * }</pre>
 *
 * <p>Two forms: {@link #create()} keeps everything in memory; {@link #directory(Path)} writes each
 * release in the directory registry's layout ({@code <dir>/@scope/name/<version>.tar.gz}, with
 * {@code <version>.tar.gz.sha256} when a checksum is stated) and serves it through {@link
 * ExtensionRegistry#directory}, so a CLI or another registry over the same directory reads what
 * the test published. Both count and fault the same way. State is per instance; thread-safe.
 */
public final class FakeRegistry implements ExtensionRegistry {

  private static final Pattern VERSION = Pattern.compile("[0-9A-Za-z][0-9A-Za-z.+_-]{0,127}");

  private final @Nullable Path directory;
  private final @Nullable ExtensionRegistry reader;
  private final Map<ExtensionName, Map<String, Held>> releases = new HashMap<>();
  private final AtomicInteger resolves = new AtomicInteger();
  private final AtomicInteger opens = new AtomicInteger();
  private final AtomicInteger unclosed = new AtomicInteger();
  private boolean offline;
  private boolean failNextOpen;
  private long breakNextStreamAfter = -1;

  /** A release held in memory: its archive and the checksum the registry states. */
  private record Held(byte[] bytes, Optional<String> stated) {}

  private FakeRegistry(@Nullable Path directory) {
    this.directory = directory;
    this.reader = directory == null ? null : ExtensionRegistry.directory(directory);
  }

  /**
   * Returns an empty registry kept in memory, online.
   *
   * @return the registry
   */
  public static FakeRegistry create() {
    return new FakeRegistry(null);
  }

  /**
   * Returns a registry over {@code directory} (created if missing), online: each publish writes the
   * release's files there, and every call reads them back through {@link
   * ExtensionRegistry#directory}. Releases already in the directory are served too.
   *
   * @param directory the registry's root
   * @return the registry
   * @throws UncheckedIOException if the directory cannot be created
   */
  public static FakeRegistry directory(Path directory) {
    Path root = directory.toAbsolutePath().normalize();
    try {
      Files.createDirectories(root);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the registry directory " + root + ": " + e.getMessage(), e);
    }
    return new FakeRegistry(root);
  }

  /**
   * Publishes {@code archive} as {@code name@version}, stating its SHA-256 (replacing a release of
   * the same version).
   *
   * @param name a scoped extension name
   * @param version a plain version, such as {@code 1.2.0}
   * @param archive the {@code .tar.gz} bytes (copied), for example from {@link TestArchives}
   * @return the release as {@link #resolve} returns it
   * @throws IllegalArgumentException if the name or the version is not one
   */
  public ExtensionRegistry.Release publish(String name, String version, byte[] archive) {
    return put(name, version, archive, Optional.of(TestArchives.sha256(archive)));
  }

  /**
   * Publishes {@code archive} as {@code name@version} stating no checksum: it installs, but is never
   * stored in the tier.
   *
   * @param name the extension's scoped name
   * @param version the release's version
   * @param archive the release's archive ({@code .tar.gz} bytes)
   * @return the release as {@link #resolve} returns it
   * @throws IllegalArgumentException as {@link #publish} does
   */
  public ExtensionRegistry.Release publishWithoutChecksum(String name, String version, byte[] archive) {
    return put(name, version, archive, Optional.empty());
  }

  /**
   * Publishes {@code archive} as {@code name@version} stating a checksum its bytes do not match (the
   * SHA-256 of other bytes): what a tampered or corrupted download looks like.
   *
   * @param name the extension's scoped name
   * @param version the release's version
   * @param archive the release's archive ({@code .tar.gz} bytes)
   * @return the release as {@link #resolve} returns it, with the wrong checksum
   * @throws IllegalArgumentException as {@link #publish} does
   */
  public ExtensionRegistry.Release publishTampered(String name, String version, byte[] archive) {
    byte[] other = java.util.Arrays.copyOf(archive, archive.length + 1);
    return put(name, version, archive, Optional.of(TestArchives.sha256(other)));
  }

  /**
   * Takes the registry offline: every {@link #resolve} and {@link #open} throws an {@link
   * InstallException} {@code registry_unavailable} (still counted) until {@link #online()}.
   *
   * @return this registry
   */
  public synchronized FakeRegistry offline() {
    offline = true;
    return this;
  }

  /**
   * Brings the registry back online.
   *
   * @return this registry
   */
  public synchronized FakeRegistry online() {
    offline = false;
    return this;
  }

  /**
   * Makes the next {@link #open} throw {@link InstallException} ({@code registry_unavailable}); later ones succeed.
   *
   * @return this registry
   */
  public synchronized FakeRegistry failNextOpen() {
    failNextOpen = true;
    return this;
  }

  /**
   * Makes the stream of the next {@link #open} throw an {@link IOException} once {@code bytes} bytes
   * were read from it (a connection reset mid-download); later streams are whole.
   *
   * @param bytes how many bytes the stream yields first, zero or more
   * @return this registry
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  public synchronized FakeRegistry breakNextStream(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("Cannot break a stream after " + bytes + " bytes: give zero or more");
    }
    breakNextStreamAfter = bytes;
    return this;
  }

  /**
   * Returns how many times {@link #resolve} was called, failed calls included.
   *
   * @return the count
   */
  public int resolveCalls() {
    return resolves.get();
  }

  /**
   * Returns how many times {@link #open} was called, failed calls included.
   *
   * @return the count
   */
  public int openCalls() {
    return opens.get();
  }

  /**
   * Returns how many streams {@link #open} returned that were not closed yet: a leak check.
   *
   * @return the count
   */
  public int unclosedStreams() {
    return unclosed.get();
  }

  /**
   * Resolves as {@link ExtensionRegistry#directory} does: an exact version literally, {@code
   * latest}, {@code locked} and {@code *} to the highest release, a range to the highest version it
   * accepts.
   *
   * @throws InstallException ({@code registry_not_found}) if no published release matches
   * @throws InstallException ({@code registry_unavailable}) if the registry is offline
   * @throws IllegalArgumentException if the range is not one the directory registry supports
   */
  @Override
  public ExtensionRegistry.Release resolve(ExtensionName name, VersionConstraint constraint) {
    resolves.incrementAndGet();
    synchronized (this) {
      if (offline) {
        throw offlineFailure(name);
      }
      if (reader != null) {
        return reader.resolve(name, constraint);
      }
      Map<String, Held> versions = releases.getOrDefault(name, Map.of());
      String version = constraint.exactVersion()
          .or(() -> constraint.highest(versions.keySet()))
          .filter(versions::containsKey)
          .orElseThrow(() -> InstallException.registryNotFound(name.value(), constraint.text()));
      return new ExtensionRegistry.Release(name, version, versions.get(version).stated(), Optional.empty());
    }
  }

  /**
   * Opens the archive of {@code release} (the bytes published, whatever checksum it states).
   *
   * @throws InstallException ({@code registry_not_found}) if no such release was published
   * @throws InstallException ({@code registry_unavailable}) if the registry is offline or {@link #failNextOpen} was called
   */
  @Override
  public InputStream open(ExtensionRegistry.Release release) {
    opens.incrementAndGet();
    InputStream in;
    long breakAfter;
    synchronized (this) {
      if (offline) {
        throw offlineFailure(release.name());
      }
      if (failNextOpen) {
        failNextOpen = false;
        throw InstallException.registryUnavailable(release.name().value(), "the open of " + release.version()
            + " failed (FakeRegistry.failNextOpen)", null);
      }
      if (reader != null) {
        in = reader.open(release);
      } else {
        Held found = releases.getOrDefault(release.name(), Map.of()).get(release.version());
        if (found == null) {
          throw InstallException.registryNotFound(release.name().value(), release.version());
        }
        in = new ByteArrayInputStream(found.bytes());
      }
      breakAfter = breakNextStreamAfter;
      breakNextStreamAfter = -1;
    }
    unclosed.incrementAndGet();
    return new Stream(in, breakAfter);
  }

  @Override
  public String toString() {
    return directory == null ? "FakeRegistry[memory]" : "FakeRegistry[" + directory + "]";
  }

  /** Returns whether {@code text} is a version the registry orders: one exact version that accepts itself. */
  private static boolean isVersion(String text) {
    try {
      return VersionConstraint.exactly(text).accepts(text);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private ExtensionRegistry.Release put(String name, String version, byte[] archive, Optional<String> stated) {
    ExtensionName extension = ExtensionName.of(name);
    Objects.requireNonNull(archive, "archive");
    if (!VERSION.matcher(version).matches() || !isVersion(version)) {
      throw new IllegalArgumentException("Cannot publish " + name + "@" + version + ": give a plain version such as"
          + " 1.2.0 or 2.0.0-rc.1");
    }
    synchronized (this) {
      if (directory != null) {
        write(extension, version, archive, stated);
      } else {
        releases.computeIfAbsent(extension, n -> new HashMap<>()).put(version, new Held(archive.clone(), stated));
      }
    }
    return new ExtensionRegistry.Release(extension, version, stated, Optional.empty());
  }

  private void write(ExtensionName name, String version, byte[] archive, Optional<String> stated) {
    Path releasesDir = Objects.requireNonNull(directory);
    for (String part : name.value().split("/")) {
      releasesDir = releasesDir.resolve(part);
    }
    String file = version + ".tar.gz";
    try {
      Files.createDirectories(releasesDir);
      Files.write(releasesDir.resolve(file), archive);
      Path checksum = releasesDir.resolve(file + ".sha256");
      if (stated.isPresent()) {
        Files.writeString(checksum, stated.get() + "  " + file + "\n");
      } else {
        Files.deleteIfExists(checksum);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot publish " + name + "@" + version + " into " + releasesDir + ": "
          + e.getMessage(), e);
    }
  }

  private static InstallException offlineFailure(ExtensionName name) {
    return InstallException.registryUnavailable(name.value(), "the registry is offline (FakeRegistry.offline)", null);
  }

  /** A release's stream: counts its close, and breaks where {@link #breakNextStream} said. */
  private final class Stream extends FilterInputStream {
    private final long breakAfter;
    private long read;
    private boolean closed;

    Stream(InputStream in, long breakAfter) {
      super(in);
      this.breakAfter = breakAfter;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      if (length == 0) {
        return 0;
      }
      int allowed = length;
      if (breakAfter >= 0) {
        if (read >= breakAfter) {
          throw new IOException("connection reset after " + read + " bytes (FakeRegistry.breakNextStream)");
        }
        allowed = (int) Math.min(length, breakAfter - read);
      }
      int n = super.read(buffer, offset, allowed);
      read += Math.max(n, 0);
      return n;
    }

    @Override
    public void close() throws IOException {
      if (!closed) {
        closed = true;
        unclosed.decrementAndGet();
      }
      super.close();
    }
  }
}
