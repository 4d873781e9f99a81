package dev.tierlock.datastore.fs;

import dev.tierlock.ExtensionName;
import dev.tierlock.Tierlock;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.ExtensionLayout;
import dev.tierlock.install.ExtensionRegistry;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.install.Installer;
import dev.tierlock.testkit.TempDirLayout;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The program {@link InstallCrashProcessTest} runs in a second JVM: {@code <install|upgrade|remove|install:SPEC>
 * <datastore dir> <checkout dir> <registry dir> <boundary|record>}. It runs the step on the
 * checkout; with a boundary, it prints {@code at <boundary>} when it reaches it and waits there for
 * ever (the test kills it), {@link #LOCKFILE_WRITE} included; with {@code record}, it prints {@code boundary <name>} for each one it
 * passes and {@code done} at the end ({@code busy} instead when {@code install:SPEC} met another
 * install of the extension in flight).
 */
final class InstallCrashChild {

  static final String TOOL = "@acme/tool";

  /**
   * Where the child stops inside the transaction's publish, not an engine boundary: just before the
   * new lockfile's file is moved into the datastore, after the pending-change record is durable.
   */
  static final String LOCKFILE_WRITE = "datastore/lockfile-write";

  private InstallCrashChild() {}

  public static void main(String[] args) throws Exception {
    String step = args[0];
    String target = args[4];
    Path root = Path.of(args[1]);
    Path lockfileObject = root.toRealPath().resolve("config").resolve("upstream_extensions.json");
    FileIo io = new FileIo() {
      @Override
      public void move(Path temp, Path destination) throws java.io.IOException {
        if (target.equals(LOCKFILE_WRITE) && destination.equals(lockfileObject)) {
          park(LOCKFILE_WRITE);
        }
        FileIo.STANDARD.move(temp, destination);
      }
    };
    try (Tierlock tierlock = Tierlock.builder()
        .datastore(FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults(), io))
        .checkout(Path.of(args[2])).build()) {
      Installer.Builder builder = Installer.builder(tierlock, layout(Path.of(args[2])))
          .registry(ExtensionRegistry.directory(Path.of(args[3])));
      builder.boundaries(boundary -> {
        if (target.equals("record")) {
          System.out.println("boundary " + boundary);
          System.out.flush();
        } else if (target.equals(boundary)) {
          park(boundary);
        }
      });
      Installer installer = builder.build();
      switch (step) {
        case "install" -> installer.install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
        case "upgrade" -> installer.install(InstallRequest.parse(TOOL + "@2.0.0"), Catalog.NONE);
        case "remove" -> installer.remove(ExtensionName.of(TOOL), Catalog.NONE);
        default -> {
          if (!step.startsWith("install:")) {
            throw new IllegalArgumentException("Cannot run step " + step);
          }
          try {
            installer.install(InstallRequest.parse(step.substring("install:".length())), Catalog.NONE);
          } catch (dev.tierlock.install.InstallBusyException e) {
            if (!e.code().equals(dev.tierlock.install.InstallException.BUSY)) {
              throw e;
            }
            System.out.println("busy");
            System.out.flush();
            return;
          }
        }
      }
    }
    System.out.println("done");
    System.out.flush();
  }

  /** Prints {@code at <where>} and waits there for ever: the test kills the JVM. */
  private static void park(String where) {
    System.out.println("at " + where);
    System.out.flush();
    try {
      new CountDownLatch(1).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted at " + where, e);
    }
  }

  /** The layout of every process of the test: {@code <checkout>/extensions}, JSON manifests. */
  static ExtensionLayout layout(Path checkout) {
    return TempDirLayout.in(checkout.toAbsolutePath());
  }
}
