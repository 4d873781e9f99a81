package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A directory registry for core's install tests, with call counters and faults (the testkit's
 * {@code FakeRegistry} is the public twin; core's tests cannot depend on the testkit).
 */
final class TestRegistry implements ExtensionRegistry {

  /** What a published release states about its checksum. */
  enum Stated { MATCHING, NONE, WRONG }

  private final Path directory;
  private final ExtensionRegistry delegate;
  private final AtomicInteger resolves = new AtomicInteger();
  private final AtomicInteger opens = new AtomicInteger();
  private final AtomicInteger unclosed = new AtomicInteger();
  private final AtomicLong breakAfter = new AtomicLong(-1);
  private volatile boolean offline;

  TestRegistry(Path directory) {
    this.directory = directory;
    this.delegate = ExtensionRegistry.directory(directory);
  }

  TestRegistry publish(String name, String version, byte[] bytes) {
    return publish(name, version, bytes, Stated.MATCHING);
  }

  TestRegistry publish(String name, String version, byte[] bytes, Stated stated) {
    Path releases = directory;
    for (String part : name.split("/")) {
      releases = releases.resolve(part);
    }
    try {
      Files.createDirectories(releases);
      Files.write(releases.resolve(version + ".tar.gz"), bytes);
      Path checksum = releases.resolve(version + ".tar.gz.sha256");
      switch (stated) {
        case MATCHING -> Files.writeString(checksum, TestTarGz.sha256(bytes) + "  " + version + ".tar.gz\n");
        case WRONG -> Files.writeString(checksum, TestTarGz.sha256(new byte[] {1}) + "\n");
        case NONE -> Files.deleteIfExists(checksum);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  void offline() {
    offline = true;
  }

  /** Makes the next stream opened throw {@link UncheckedIOException} after {@code bytes} bytes. */
  void breakNextStreamAfter(long bytes) {
    breakAfter.set(bytes);
  }

  int resolveCalls() {
    return resolves.get();
  }

  int openCalls() {
    return opens.get();
  }

  int unclosedStreams() {
    return unclosed.get();
  }

  @Override
  public ExtensionRegistry.Release resolve(ExtensionName name, VersionConstraint constraint) {
    resolves.incrementAndGet();
    if (offline) {
      throw InstallException.registryUnavailable(name.value(), "offline (test)", null);
    }
    return delegate.resolve(name, constraint);
  }

  @Override
  public InputStream open(ExtensionRegistry.Release release) {
    opens.incrementAndGet();
    if (offline) {
      throw InstallException.registryUnavailable(release.name().value(), "offline (test)", null);
    }
    long limit = breakAfter.getAndSet(-1);
    unclosed.incrementAndGet();
    return new FilterInputStream(delegate.open(release)) {
      private long read;
      private boolean closed;

      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (limit >= 0 && read >= limit) {
          throw new UncheckedIOException(new IOException("connection reset (test)"));
        }
        int n = super.read(b, off, limit >= 0 ? (int) Math.min(len, limit - read) : len);
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
    };
  }
}
