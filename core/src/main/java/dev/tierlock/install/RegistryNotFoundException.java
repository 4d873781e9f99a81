package dev.tierlock.install;

/**
 * The registry has no release of the extension matching the constraint. Nothing was installed;
 * check the name and the constraint. Code {@code registry_not_found}.
 */
public final class RegistryNotFoundException extends InstallException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "registry_not_found";

  /**
   * Creates the exception.
   *
   * @param extension the extension asked for
   * @param constraint the version constraint asked for
   */
  public RegistryNotFoundException(String extension, String constraint) {
    super(CODE, extension, "Cannot find " + extension + "@" + constraint + " in the extension registry", null);
  }
}
