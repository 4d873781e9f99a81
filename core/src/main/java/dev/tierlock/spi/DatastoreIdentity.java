package dev.tierlock.spi;

import java.util.Locale;

/**
 * What a datastore really is: the kind of store, the endpoint it talks to, the container (bucket)
 * and the prefix within it. Safety verdicts (the precondition self-check) are keyed by it, so it
 * must name everything that could make two stores differ, never a display string that two
 * different stores could share. Immutable; equal when every part is equal.
 *
 * <p>Each backend documents how it fills the parts. S3: {@code s3}, the endpoint URL the client
 * sends to, the bucket, the key prefix. GCS: {@code gs}, the host, the bucket, the prefix. A
 * filesystem: {@code file}, the root directory's file key (device and inode, where the file
 * system has them), no container, the root's real path. A fake: its own instance id.
 *
 * @param scheme the kind of store, lowercase ({@code s3}, {@code gs}, {@code file}, ...)
 * @param endpoint the endpoint the store is reached at (a URL, a host, a device and inode); may be
 *     empty only when the store has none
 * @param container the bucket or equivalent; empty when the store has none
 * @param prefix the key prefix within the container (or the root path); empty for none
 */
public record DatastoreIdentity(String scheme, String endpoint, String container, String prefix) {

  /**
   * Validates the parts.
   *
   * @param scheme the kind of store, lowercase ({@code s3}, {@code gs}, {@code file}, ...)
   * @param endpoint the endpoint the store is reached at (a URL, a host, a device and inode); may
   *     be empty only when the store has none
   * @param container the bucket or equivalent; empty when the store has none
   * @param prefix the key prefix within the container (or the root path); empty for none
   * @throws IllegalArgumentException if the scheme is not lowercase letters, digits, {@code +},
   *     {@code -} or {@code .}, or a part holds a control character
   */
  public DatastoreIdentity {
    if (!scheme.matches("[a-z][a-z0-9+.-]*")) {
      throw new IllegalArgumentException("Cannot use datastore identity scheme \"" + scheme
          + "\": lowercase letters, digits, '+', '-' and '.', starting with a letter");
    }
    for (String part : new String[] {endpoint, container, prefix}) {
      if (part.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
        throw new IllegalArgumentException("Cannot use datastore identity part \"" + part.strip()
            + "\": it holds a control character");
      }
    }
    scheme = scheme.toLowerCase(Locale.ROOT);
  }

  /**
   * Returns the identity as one line for messages and markers: {@code
   * <scheme>://<container>/<prefix> at <endpoint>}.
   */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder(scheme).append("://").append(container);
    if (!prefix.isEmpty()) {
      out.append(container.isEmpty() || prefix.startsWith("/") ? "" : "/").append(prefix);
    }
    if (!endpoint.isEmpty()) {
      out.append(" at ").append(endpoint);
    }
    return out.toString();
  }
}
