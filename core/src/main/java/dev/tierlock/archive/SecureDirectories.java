package dev.tierlock.archive;

import java.io.IOException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Operations relative to an open directory handle that never follow a symbolic link, even one put
 * in place of a directory meanwhile: every name is looked up, opened or deleted relative to the
 * handle of its verified parent. Stateless.
 */
final class SecureDirectories {

  private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

  private SecureDirectories() {}

  /** Deletes everything below {@code directory}, entering only real directories. */
  static void deleteContents(SecureDirectoryStream<Path> directory) throws IOException {
    List<Path> names = new ArrayList<>();
    for (Path child : directory) {
      names.add(child.getFileName());
    }
    for (Path name : names) {
      BasicFileAttributes attributes = attributes(directory, name);
      if (attributes == null) {
        continue;
      }
      if (attributes.isDirectory()) {
        try (SecureDirectoryStream<Path> child = directory.newDirectoryStream(name, NOFOLLOW)) {
          deleteContents(child);
        }
        directory.deleteDirectory(name);
      } else {
        directory.deleteFile(name);
      }
    }
  }

  /** Returns the attributes of {@code name} itself (a link is not followed), or null when it is absent. */
  static @Nullable BasicFileAttributes attributes(SecureDirectoryStream<Path> directory, Path name)
      throws IOException {
    try {
      return directory.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW).readAttributes();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** Returns the permissions of the low nine bits of a tar mode. */
  static Set<PosixFilePermission> permissions(int mode) {
    Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] order = {
      PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
      PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
      PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ,
    };
    for (int bit = 0; bit < order.length; bit++) {
      if ((mode & (1 << bit)) != 0) {
        set.add(order[bit]);
      }
    }
    return set;
  }

  /** Closes {@code stream}, adding a failure to {@code failure} as suppressed. */
  static void closeQuietly(SecureDirectoryStream<Path> stream, Throwable failure) {
    try {
      stream.close();
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }
}
