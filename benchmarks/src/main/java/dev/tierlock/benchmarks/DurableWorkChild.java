package dev.tierlock.benchmarks;

import dev.tierlock.datastore.fs.FileSystemDatastore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The child JVM the durable-work count runs under {@code strace}: one writer on a filesystem
 * datastore, past its self-check, the lockfile's history and one warm-up put, then {@code commits}
 * warm puts between the two marks {@link StraceLog} counts between (left in the checkout's
 * parent directory, apart from the store and the checkout). Arguments:
 * the protocol's name ({@link Protocol#name()}), the store's directory, the checkout's directory,
 * the number of puts after the warm-up.
 */
public final class DurableWorkChild {

  private DurableWorkChild() {}

  /**
   * Runs the writer.
   *
   * @param args protocol, store directory, checkout directory, commits
   * @throws Exception if a put fails: the exit status is then not 0
   */
  public static void main(String[] args) throws Exception {
    Protocol protocol = DurableWork.protocol(args[0]);
    Path root = Files.createDirectories(Path.of(args[1]));
    int commits = Integer.parseInt(args[3]);
    try (FileSystemDatastore store = FileSystemDatastore.open(root);
        DurableWork.Writer writer = DurableWork.Writer.open(protocol, store, Path.of(args[2]))) {
      Path marks = Path.of(args[2]).toAbsolutePath().getParent();
      StraceLog.mark(marks, StraceLog.BEGIN);
      for (int i = 0; i < commits; i++) {
        writer.put(i);
      }
      StraceLog.mark(marks, StraceLog.END);
    }
  }
}
