package dev.tierlock;

import dev.tierlock.spi.DirectAccess;
import dev.tierlock.spi.ObjectKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A memory datastore that also offers direct access: objects' files under a root directory. */
final class DirectMemoryDatastore extends MemoryDatastore implements DirectAccess {

  private final Path root;

  DirectMemoryDatastore(Path root) {
    this.root = root;
  }

  @Override
  public Path pathOf(ObjectKey key) {
    return root.resolve("objects").resolve(key.value());
  }

  @Override
  public Path lockDirectory() {
    try {
      return Files.createDirectories(root.resolve("locks"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
