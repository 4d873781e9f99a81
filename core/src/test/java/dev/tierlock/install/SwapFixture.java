package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * A checkout's extension files for the swap tests, under one directory: {@code pulled/} (the pulled
 * root: {@code @acme/tools} with a nested {@code @acme/tools/sub}, and {@code @acme/other}) and
 * {@code bundles/models/tools} (the bundle root of {@code @acme/tools}); the new version's content
 * under {@code src/}. Whole trees are compared as {@link #snapshot}s.
 */
final class SwapFixture {

  static final ExtensionName TOOLS = ExtensionName.of("@acme/tools");
  static final ExtensionName OTHER = ExtensionName.of("@acme/other");
  static final String NESTED = "sub";
  static final String OWNER = "00000000-0000-4000-8000-000000000001";
  static final String STAGING = "00000000-0000-4000-8000-0000000000aa";
  static final String V1_SUM = "1".repeat(64);
  static final String V2_SUM = "2".repeat(64);

  final Path root;
  final Path pulled;
  final Path bundle;
  final Layout layout;
  final String lockfile;

  SwapFixture(Path root) {
    this.root = root.toAbsolutePath().normalize();
    this.pulled = this.root.resolve("pulled");
    this.bundle = this.root.resolve("bundles").resolve("models").resolve("tools");
    this.layout = new Layout(pulled, Map.of(TOOLS, List.of(new ExtensionLayout.BundleRoot("bundles/models", bundle))));
    this.lockfile = this.root.resolve("extensions").resolve("upstream_extensions.json").toString();
  }

  /** Writes version 1 of {@code @acme/tools} (with its nested extension and bundle), and {@code @acme/other}. */
  SwapFixture installV1() throws IOException {
    Path tools = tools();
    write(tools.resolve("manifest.json"), "{\"name\":\"@acme/tools\",\"version\":\"1\"}");
    write(tools.resolve("lib/a.txt"), "a of v1");
    write(tools.resolve("lib/v1-only.txt"), "only v1 has this");
    Files.createDirectories(tools.resolve("empty"));
    write(tools.resolve("sub/manifest.json"), "{\"name\":\"@acme/tools/sub\",\"version\":\"7\"}");
    write(tools.resolve("sub/deep/s.txt"), "nested bytes \u0000\u00ff");
    Files.createSymbolicLink(tools.resolve("sub/link"), Path.of("deep/s.txt"));
    write(pulled.resolve("@acme/other/manifest.json"), "{\"name\":\"@acme/other\",\"version\":\"3\"}");
    write(bundle.resolve("b.js"), "bundle of v1");
    write(bundle.resolve("v1-only.js"), "bundle only v1 has");
    return this;
  }

  /** Writes the new version's content: {@code src/ext} (the extension root) and {@code src/bundle}. */
  SwapFixture sourcesV2() throws IOException {
    write(extSource().resolve("manifest.json"), "{\"name\":\"@acme/tools\",\"version\":\"2\"}");
    write(extSource().resolve("lib/a.txt"), "a of v2");
    write(extSource().resolve("lib/v2-only.txt"), "only v2 has this");
    write(bundleSource().resolve("b.js"), "bundle of v2");
    return this;
  }

  /** Writes, into this fixture's directory, what the v1 to v2 upgrade must leave. */
  SwapFixture expectedV2() throws IOException {
    installV1();
    StagingFiles.delete(tools().resolve("lib"));
    StagingFiles.delete(tools().resolve("empty"));
    StagingFiles.delete(bundle);
    write(tools().resolve("manifest.json"), "{\"name\":\"@acme/tools\",\"version\":\"2\"}");
    write(tools().resolve("lib/a.txt"), "a of v2");
    write(tools().resolve("lib/v2-only.txt"), "only v2 has this");
    write(bundle.resolve("b.js"), "bundle of v2");
    return this;
  }

  /** Writes, into this fixture's directory, what removing {@code @acme/tools} from v1 must leave. */
  SwapFixture expectedRemoved() throws IOException {
    installV1();
    for (String part : new String[] {"manifest.json", "lib", "empty"}) {
      StagingFiles.delete(tools().resolve(part));
    }
    StagingFiles.delete(bundle);
    return this;
  }

  Path tools() {
    return pulled.resolve("@acme").resolve("tools");
  }

  Path extSource() {
    return root.resolve("src").resolve("ext");
  }

  Path bundleSource() {
    return root.resolve("src").resolve("bundle");
  }

  /** The upgrade (or fresh install) to v2, with the bundle root. */
  SwapPlan upgrade() {
    return plan(V2_SUM, extSource(), bundleSource());
  }

  /** The removal of {@code @acme/tools}. */
  SwapPlan removal() {
    return plan(null, null, null);
  }

  SwapPlan plan(@Nullable String checksum, @Nullable Path ext, @Nullable Path bundleSource) {
    return new SwapPlan(TOOLS, OWNER, STAGING, lockfile, checksum,
        List.of(new SwapRoot(SwapRoot.Role.EXTENSION, tools(), ext), new SwapRoot(SwapRoot.Role.BUNDLE, bundle,
            bundleSource)), "manifest.json", List.of(NESTED));
  }

  /** A recovery of this checkout with a fresh set of owners and a clock two hours ahead (everything journal-less is swept). */
  Recovery recovery() {
    return new Recovery(layout, java.time.Clock.offset(java.time.Clock.systemUTC(), java.time.Duration.ofHours(2)),
        Set.of(Path.of(lockfile)), new OwnerIds(), SwapBoundary.NONE);
  }

  /** Recovers with {@code @acme/tools} pinned at {@code checksum} (or not at all). */
  RecoveryReport recover(@Nullable String checksum) {
    return recovery().recover(name -> name.equals(TOOLS) ? Optional.ofNullable(checksum) : Optional.of("3".repeat(64)),
        Set.of(TOOLS, OTHER));
  }

  /** Returns the staging left anywhere: entries of the pulled root's staging, and bundle staging siblings. */
  List<Path> stagingLeft() throws IOException {
    List<Path> left = new ArrayList<>();
    Path stagingRoot = pulled.resolve(Roots.STAGING);
    if (Files.isDirectory(stagingRoot)) {
      try (var entries = Files.list(stagingRoot)) {
        entries.forEach(left::add);
      }
    }
    if (Files.isDirectory(bundle.getParent())) {
      try (var entries = Files.list(bundle.getParent())) {
        entries.filter(p -> p.getFileName().toString().startsWith(StagingPaths.BUNDLE_PREFIX)).forEach(left::add);
      }
    }
    return left;
  }

  /** Returns the extension files: {@code pulled/} and {@code bundles/}, without any staging (see {@link #stagingLeft}). */
  SortedMap<String, String> snapshot() throws IOException {
    SortedMap<String, String> all = snapshot(root);
    all.keySet().removeIf(key -> !(key.startsWith("pulled") || key.startsWith("bundles"))
        || key.contains("/" + Roots.STAGING));
    return all;
  }

  /**
   * Returns every entry under {@code dir}, by {@code /}-separated relative path: {@code d} for a
   * directory, {@code f:} and the bytes (as ISO-8859-1) for a file, {@code l:} and the target for a link.
   */
  static SortedMap<String, String> snapshot(Path dir) throws IOException {
    SortedMap<String, String> entries = new TreeMap<>();
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
        if (!d.equals(dir)) {
          entries.put(rel(dir, d), "d");
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        entries.put(rel(dir, file), attrs.isSymbolicLink() ? "l:" + Files.readSymbolicLink(file)
            : "f:" + new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
        return FileVisitResult.CONTINUE;
      }
    });
    return entries;
  }

  /** Returns the part of a snapshot under {@code prefix}. */
  static SortedMap<String, String> under(SortedMap<String, String> snapshot, String prefix) {
    SortedMap<String, String> part = new TreeMap<>();
    snapshot.forEach((key, value) -> {
      if (key.startsWith(prefix)) {
        part.put(key, value);
      }
    });
    return part;
  }

  static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.write(file, text.getBytes(StandardCharsets.UTF_8));
  }

  static boolean exists(Path path) {
    return Files.exists(path, LinkOption.NOFOLLOW_LINKS);
  }

  private static String rel(Path dir, Path path) {
    return dir.relativize(path).toString().replace('\\', '/');
  }

  /** A layout over a pulled root, with bundle roots per name, manifests at {@code manifest.json}, skills under {@code skills/}. */
  record Layout(Path pulledRoot, Map<ExtensionName, List<ExtensionLayout.BundleRoot>> bundles)
      implements ExtensionLayout {
    @Override
    public List<ExtensionLayout.BundleRoot> bundleRoots(ExtensionName name) {
      return bundles.getOrDefault(name, List.of());
    }

    @Override
    public ExtensionManifest readManifest(Path file) {
      throw new UnsupportedOperationException("the swap reads no manifest");
    }

    @Override
    public boolean isSkill(String relativePath) {
      return relativePath.startsWith("skills/");
    }
  }

  /** A hook that records every boundary, and runs an action at one. */
  static final class Recorder implements SwapBoundary {
    final List<String> seen = new ArrayList<>();
    private final String at;
    private final Action action;

    Recorder() {
      this("", () -> {});
    }

    Recorder(String at, Action action) {
      this.at = at;
      this.action = action;
    }

    @Override
    public void at(String boundary) {
      seen.add(boundary);
      if (boundary.equals(at)) {
        try {
          action.run();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    }
  }

  /** What a {@link Recorder} does at its boundary. */
  interface Action {
    void run() throws IOException;
  }

  /** Stops a swap where it is, as a crash would: no catch in the engine handles an Error. */
  static final class Crash extends Error {
    private static final long serialVersionUID = 1L;

    Crash(String boundary) {
      super("crash at " + boundary);
    }
  }

  /** Runs {@code steps} with a hook that crashes at {@code boundary}; returns whether it got there. */
  static boolean crashAt(String boundary, CrashSteps steps) {
    try {
      steps.run(b -> {
        if (b.equals(boundary)) {
          throw new Crash(b);
        }
      });
      return false;
    } catch (Crash crash) {
      return true;
    }
  }

  /** Steps of a swap driven with a hook. */
  interface CrashSteps {
    void run(SwapBoundary hook);
  }
}
