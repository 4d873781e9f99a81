package dev.tierlock.testkit.gcs;

import java.net.URI;

/**
 * A fresh bucket on a {@link GcsFakeServer}, as {@link GcsFakeServerExtension} hands one to each
 * test. Immutable.
 *
 * @param server the server that holds the bucket
 * @param name the bucket's name
 */
public record GcsFakeBucket(GcsFakeServer server, String name) {

  /** {@return the server's endpoint, to give a client as its host} */
  public URI endpoint() {
    return server.endpoint();
  }
}
