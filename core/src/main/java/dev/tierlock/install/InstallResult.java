package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.TransactionResult;
import java.util.List;
import java.util.Map;

/**
 * How {@link Installer#install} ended.
 *
 * @param installed the manifests swapped in: the requested extension first, then each dependency
 *     installed with it
 * @param sources where each installed extension's archive came from
 * @param recorded whether the requested extension's entry was written (the record policy may
 *     leave it as it was)
 * @param transaction how the transaction that wrote the entries ended (published, or deferred under
 *     {@link dev.tierlock.PublishFailurePolicy#DEFER}, with its warnings)
 */
public record InstallResult(List<ExtensionManifest> installed, Map<ExtensionName, Source> sources,
    boolean recorded, TransactionResult transaction) {

  /**
   * Copies the collections.
   *
   * @param installed the manifests swapped in: the requested extension first, then each dependency
   *     installed with it
   * @param sources where each installed extension's archive came from
   * @param recorded whether the requested extension's entry was written (the record policy may
   *     leave it as it was)
   * @param transaction how the transaction that wrote the entries ended (published, or deferred
   *     under {@link dev.tierlock.PublishFailurePolicy#DEFER}, with its warnings)
   */
  public InstallResult {
    installed = List.copyOf(installed);
    sources = Map.copyOf(sources);
  }

  /** Where an installed (or prepared) extension's archive came from. */
  public enum Source {
    /** The tier's archive store: the lockfile entry's checksum named it, and its bytes matched. */
    TIER,
    /** The registry: the tier did not have it (or the entry had no checksum). */
    REGISTRY
  }
}
