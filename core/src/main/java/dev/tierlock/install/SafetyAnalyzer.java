package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.nio.file.Path;

/**
 * The embedding tool's check of an extension's files before they go live: run on the staged
 * extension root, after extraction and before any lock is taken. A port; optional.
 */
@FunctionalInterface
public interface SafetyAnalyzer {

  /**
   * Analyses the staged files of {@code name}; returns normally to accept them.
   *
   * @param name the extension
   * @param version the version staged
   * @param stagedRoot the staged extension root (read it, do not change it)
   * @throws InstallException to refuse the extension: {@link InstallException#unsafe} ({@code
   *     install_unsafe})
   */
  void analyze(ExtensionName name, String version, Path stagedRoot);
}
