package dev.tierlock.archive;

import dev.tierlock.Namespace;
import dev.tierlock.internal.AtomicFileWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local cache of archives, laid out like the tier under one root. Files appear only by an
 * atomic move of a verified temp file from the same directory; directories below the root are
 * never followed through a link. Thread-safe (no state besides configuration).
 */
final class ArchiveCache {

  private static final Logger LOG = LoggerFactory.getLogger(ArchiveStore.class);

  private final Path root;
  private final ArchiveLimits limits;

  ArchiveCache(Path root, ArchiveLimits limits) {
    this.root = root;
    this.limits = limits;
  }

  /**
   * Returns the cache file of an archive, checked to lie under the root.
   *
   * @throws ArchiveException ({@code archive_io}) if it would not (unreachable for a validated key)
   */
  Path path(Namespace namespace, ExtensionArchiveKey key) {
    Path path = namespace.localPath(root, key.tierPath()).toAbsolutePath().normalize();
    if (!path.startsWith(root) || path.equals(root)) {
      throw ArchiveException.io(key.toString(), "Cannot cache archive " + key + ": its path " + path
          + " would leave the cache " + root, new IOException("path outside the cache"));
    }
    return path;
  }

  /**
   * Returns the cached archive when its bytes still hash to the key; removes a cached file that does
   * not (wrong bytes, oversize, or not a regular file).
   *
   * @throws ArchiveException ({@code archive_io}) if the file cannot be read or removed
   */
  Optional<ArchiveFile> verified(ExtensionArchiveKey key, Path local, VerifyingCopy.Checkpoint checkpoint) {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(local, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (java.nio.file.NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw failure(key, "read the cached", local, e);
    }
    if (!attributes.isRegularFile()) {
      LOG.warn("Removing {} from the archive cache: it is not a regular file", local);
      removeIfSame(key, local, attributes.fileKey());
      return Optional.empty();
    }
    VerifyingCopy.Result result;
    try (InputStream in = Files.newInputStream(local, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      result = VerifyingCopy.copy(in, null, limits.maxCompressedBytes(), key.toString(), checkpoint);
    } catch (ArchiveException e) {
      if (!e.code().equals(ArchiveException.LIMIT)) {
        throw e;
      }
      LOG.warn("Removing {} from the archive cache: it is larger than the cap of {} bytes", local,
          limits.maxCompressedBytes());
      removeIfSame(key, local, attributes.fileKey());
      return Optional.empty();
    } catch (VerifyingCopy.SourceException e) {
      throw failure(key, "read the cached", local, (IOException) Objects.requireNonNull(e.getCause()));
    } catch (IOException e) {
      throw failure(key, "read the cached", local, e);
    }
    if (!result.sha256().equals(key.sha256())) {
      LOG.warn("Removing {} from the archive cache: its SHA-256 is {}, expected {}", local, result.sha256(),
          key.sha256());
      removeIfSame(key, local, attributes.fileKey());
      return Optional.empty();
    }
    return Optional.of(new ArchiveFile(key, local, result.size(), ArchiveFile.Origin.CACHE));
  }

  /**
   * Creates the directories down to {@code local}'s parent (refusing links below the root) and an
   * empty temp file beside {@code local}.
   *
   * @throws ArchiveException ({@code archive_io}) if that fails
   */
  Path newTemp(ExtensionArchiveKey key, Path local) {
    try {
      Files.createDirectories(root);
      Path current = root;
      for (Path segment : root.relativize(local.getParent())) {
        current = current.resolve(segment);
        if (Files.isSymbolicLink(current)) {
          throw ArchiveException.io(key.toString(), "Cannot cache archive " + key + ": " + current
              + " is a symbolic link", new IOException("symbolic link in the cache"));
        }
        if (!Files.isDirectory(current, LinkOption.NOFOLLOW_LINKS)) {
          try {
            Files.createDirectory(current);
          } catch (java.nio.file.FileAlreadyExistsException raced) {
            // another process or thread created it between the check and here: fine if it is a
            // directory, and never through a link
            if (!Files.isDirectory(current, LinkOption.NOFOLLOW_LINKS)) {
              throw raced;
            }
          }
        }
      }
      return AtomicFileWriter.newTemp(local);
    } catch (IOException e) {
      throw failure(key, "cache", local, e);
    }
  }

  /**
   * Moves a verified temp file (written from the datastore, which keeps the archive) over {@code
   * local} atomically, forcing neither the file nor the directory: a copy the datastore still holds
   * needs no durability of its own, since every read of the cache hashes the file first ({@link
   * #verified}) and a copy torn or lost by a crash is removed and read again. An archive the caller
   * stores ({@code ArchiveStore.store}) is not moved in this way: until its upload, the cache holds
   * the only copy.
   *
   * @throws IOException if the move fails; {@code local} is then unchanged
   */
  void moveInUnforced(Path temp, Path local) throws IOException {
    AtomicFileWriter.moveIntoUnforced(temp, local);
  }

  /** Deletes a temp file if it is still there; a failure is logged (the name marks it internal). */
  void deleteTemp(Path temp) {
    try {
      Files.deleteIfExists(temp);
    } catch (IOException e) {
      LOG.warn("Cannot delete temp file {}: {}", temp, e.toString(), e);
    }
  }

  /**
   * Removes an archive's cache file, if any.
   *
   * @throws ArchiveException ({@code archive_io}) if it cannot be removed
   */
  void remove(ExtensionArchiveKey key, Path local) {
    try {
      Files.deleteIfExists(local);
    } catch (IOException e) {
      throw failure(key, "remove the cached", local, e);
    }
  }

  /** Returns the failure of a cache operation, or a cancellation when an interrupt closed a channel. */
  ArchiveException failure(ExtensionArchiveKey key, String verb, Path path, IOException e) {
    if (e instanceof ClosedByInterruptException) {
      return ArchiveException.cancelled(key.toString(), verb, e);
    }
    return ArchiveException.io(key.toString(), "Cannot " + verb + " archive " + key + " at " + path + ": "
        + e.getMessage(), e);
  }

  /**
   * Removes {@code local} only if it is still the file that was judged bad, so that a good file a
   * concurrent read just moved in is kept (a narrow race remains between the check and the delete;
   * the next read re-verifies either way).
   */
  private void removeIfSame(ExtensionArchiveKey key, Path local, @Nullable Object fileKey) {
    try {
      BasicFileAttributes now = Files.readAttributes(local, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (fileKey == null || fileKey.equals(now.fileKey())) {
        Files.deleteIfExists(local);
      }
    } catch (java.nio.file.NoSuchFileException e) {
      // already gone
    } catch (IOException e) {
      throw failure(key, "remove the cached", local, e);
    }
  }
}
