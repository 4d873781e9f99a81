package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteResult;
import dev.tierlock.Lockfile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Small values and result checks the datastore tests share. */
final class Fixtures {

  private Fixtures() {}

  /** File steps where the file system keeps no extended attributes: metadata goes to the sidecar. */
  static final FileIo WITHOUT_ATTRIBUTES = new FileIo() {
    @Override
    public boolean attach(Path file, String name, byte[] value) {
      return false;
    }
  };

  /** Opens the datastore at {@code root} as on a file system without extended attributes (the sidecar form). */
  static FileSystemDatastore sidecarForm(Path root) {
    return FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults(), WITHOUT_ATTRIBUTES);
  }

  static ObjectBody body(String text) {
    return ObjectBody.of(bytes(text));
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static ObjectVersion written(WriteResult result) {
    assertThat(result).isInstanceOf(WriteResult.Written.class);
    return ((WriteResult.Written) result).version();
  }

  static ReadResult.Found found(ReadResult result) {
    assertThat(result).isInstanceOf(ReadResult.Found.class);
    return (ReadResult.Found) result;
  }

  static List<String> keys(List<StoredObject> objects) {
    return objects.stream().map(o -> o.key().value()).toList();
  }

  /** Returns each entry's version by name, in the lockfile's order. */
  static Map<String, String> versions(Lockfile lockfile) {
    Map<String, String> out = new LinkedHashMap<>();
    lockfile.entries().forEach((name, entry) -> out.put(name.value(), entry.version()));
    return out;
  }

  /**
   * Returns every temp file below a datastore root: those in the internal temp directory, and any
   * that sits beside an object (as earlier versions staged them).
   */
  static List<Path> tempFiles(Path root) throws IOException {
    Path tmp = root.resolve(RootLayout.INTERNAL).resolve("tmp");
    Path claims = root.resolve(RootLayout.INTERNAL).resolve("claims");
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(f -> Files.isRegularFile(f)
          && (f.startsWith(tmp) || f.startsWith(claims) || RootLayout.isLegacyTemp(f.getFileName().toString())))
          .sorted().toList();
    }
  }

  /**
   * Returns every regular file below a datastore root outside its internal directory, as paths
   * relative to the root with {@code /} separators, sorted: the objects, and any lock or temp file
   * that escaped the internal directory.
   */
  static List<String> filesOutsideInternal(Path root) throws IOException {
    Path internal = root.resolve(RootLayout.INTERNAL);
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(f -> !f.startsWith(internal) && Files.isRegularFile(f))
          .map(f -> root.relativize(f).toString().replace(f.getFileSystem().getSeparator(), "/"))
          .sorted()
          .toList();
    }
  }
}
