package dev.tierlock.testkit;

import dev.tierlock.ExtensionName;
import dev.tierlock.install.ExtensionLayout;
import dev.tierlock.install.ExtensionManifest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * An {@link ExtensionLayout} for tests, inside a checkout directory (typically a JUnit
 * {@code @TempDir}): extension roots under {@code <checkout>/extensions}, JSON manifests ({@code
 * manifest.json}, read by {@link ExtensionManifest#readJson}), and optionally bundle roots and skill
 * paths.
 *
 * <pre>{@code
 * TempDirLayout layout = TempDirLayout.in(checkout)
 *     .withBundle("bundles/models", name -> checkout.resolve(".swamp/model-bundles").resolve(name.value().substring(1)))
 *     .withSkills(path -> path.startsWith("skills/"));
 * }</pre>
 *
 * <p>Immutable and thread-safe; each {@code with} method returns a new layout. The functions given
 * must answer from the name alone (the same path every call), as the port requires.
 */
public final class TempDirLayout implements ExtensionLayout {

  /** The directory under the checkout that holds the extension roots. */
  public static final String EXTENSIONS = "extensions";

  private record Bundle(String archivePrefix, Function<ExtensionName, Path> live) {}

  private final Path checkout;
  private final List<Bundle> bundles;
  private final Predicate<String> skills;

  private TempDirLayout(Path checkout, List<Bundle> bundles, Predicate<String> skills) {
    this.checkout = checkout;
    this.bundles = List.copyOf(bundles);
    this.skills = skills;
  }

  /**
   * Returns the layout of {@code checkout}: no bundle roots, no skills.
   *
   * @param checkout the checkout directory (made absolute); it need not exist yet
   * @return the layout
   */
  public static TempDirLayout in(Path checkout) {
    return new TempDirLayout(checkout.toAbsolutePath().normalize(), List.of(), path -> false);
  }

  /**
   * Returns this layout with one more bundle root for every extension: the archive directory {@code
   * archivePrefix} goes to {@code live.apply(name)} instead of the extension root.
   *
   * @param archivePrefix the archive directory, such as {@code bundles/models}
   * @param live the bundle root of each extension: absolute, at least two levels deep, the same for
   *     one name every call
   * @return the new layout
   * @throws IllegalArgumentException if the prefix is not a relative directory (as {@link
   *     ExtensionLayout.BundleRoot} checks)
   */
  public TempDirLayout withBundle(String archivePrefix, Function<ExtensionName, Path> live) {
    Objects.requireNonNull(live, "live");
    // checks the prefix now
    new ExtensionLayout.BundleRoot(archivePrefix, checkout.getRoot().resolve("prefix").resolve("check"));
    List<Bundle> more = new ArrayList<>(bundles);
    more.add(new Bundle(archivePrefix, live));
    return new TempDirLayout(checkout, more, skills);
  }

  /**
   * Returns this layout with {@code skills} saying which paths of an extension root are skills
   * (excluded from digests and drift checks).
   *
   * @param skills tests a relative, {@code /}-separated path, such as {@code skills/review.md}
   * @return the new layout
   */
  public TempDirLayout withSkills(Predicate<String> skills) {
    return new TempDirLayout(checkout, bundles, Objects.requireNonNull(skills, "skills"));
  }

  /**
   * Returns the checkout directory.
   *
   * @return it, absolute
   */
  public Path checkout() {
    return checkout;
  }

  /** Returns {@code <checkout>/extensions}. */
  @Override
  public Path pulledRoot() {
    return checkout.resolve(EXTENSIONS);
  }

  /**
   * Returns the bundle roots given by {@link #withBundle}, in that order.
   *
   * @throws IllegalArgumentException if a function returned a path {@link ExtensionLayout.BundleRoot} refuses
   */
  @Override
  public List<ExtensionLayout.BundleRoot> bundleRoots(ExtensionName name) {
    List<ExtensionLayout.BundleRoot> roots = new ArrayList<>(bundles.size());
    for (Bundle bundle : bundles) {
      roots.add(new ExtensionLayout.BundleRoot(bundle.archivePrefix(), bundle.live().apply(name)));
    }
    return List.copyOf(roots);
  }

  /** Reads a JSON manifest ({@link ExtensionManifest#readJson}). */
  @Override
  public ExtensionManifest readManifest(Path file) {
    return ExtensionManifest.readJson(file);
  }

  /** Answers from the predicate given by {@link #withSkills}; by default no path is a skill. */
  @Override
  public boolean isSkill(String relativePath) {
    return skills.test(relativePath);
  }

  @Override
  public String toString() {
    return "TempDirLayout[" + pulledRoot() + ", " + bundles.size() + " bundle roots]";
  }
}
