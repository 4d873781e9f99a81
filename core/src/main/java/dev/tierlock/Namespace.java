package dev.tierlock;

import dev.tierlock.spi.ObjectKey;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The namespace a checkout shares a datastore under: none (the datastore's root) or one segment
 * that prefixes every key, {@code <ns>/config/...}. Keys and local paths are built only through
 * {@link #key} and {@link #localPath}, so a namespace is applied exactly once. Immutable.
 */
public final class Namespace {

  /** The rule a namespace name matches. */
  public static final Pattern PATTERN = Pattern.compile("^[a-z0-9][a-z0-9_-]{0,62}$");

  /** No namespace: keys start at the datastore root. */
  public static final Namespace NONE = new Namespace("");

  private final String name;

  private Namespace(String name) {
    this.name = name;
  }

  /**
   * {@return the namespace {@code name}, or {@link #NONE} for the empty string}
   *
   * @param name the namespace's name, or the empty string
   * @throws IllegalArgumentException if the name does not match {@link #PATTERN}
   */
  public static Namespace of(String name) {
    if (name.isEmpty()) {
      return NONE;
    }
    if (!PATTERN.matcher(name).matches()) {
      throw new IllegalArgumentException("Cannot use namespace \"" + name + "\": a namespace matches " + PATTERN.pattern());
    }
    return new Namespace(name);
  }

  /** {@return the name, or empty for {@link #NONE}} */
  public Optional<String> name() {
    return name.isEmpty() ? Optional.empty() : Optional.of(name);
  }

  /**
   * {@return the datastore key of a tier path under this namespace}
   *
   * @param path the tier path
   */
  public ObjectKey key(TierPath path) {
    java.util.Objects.requireNonNull(path, "path");
    return ObjectKey.of(name.isEmpty() ? path.value() : name + "/" + path.value());
  }

  /**
   * {@return the key of a root-level object ({@code .datastore.lock}) under this namespace}
   *
   * @param objectName the object's name
   */
  public ObjectKey rootKey(String objectName) {
    java.util.Objects.requireNonNull(objectName, "objectName");
    return ObjectKey.of(name.isEmpty() ? objectName : name + "/" + objectName);
  }

  /**
   * {@return the local file of a tier path in a cache root laid out like the datastore}
   *
   * @param cacheRoot the cache root
   * @param path the tier path
   */
  public Path localPath(Path cacheRoot, TierPath path) {
    java.util.Objects.requireNonNull(path, "path");
    Path base = name.isEmpty() ? cacheRoot : cacheRoot.resolve(name);
    return base.resolve(path.value());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Namespace other && other.name.equals(name);
  }

  @Override
  public int hashCode() {
    return name.hashCode();
  }

  @Override
  public String toString() {
    return name.isEmpty() ? "(no namespace)" : name;
  }
}
