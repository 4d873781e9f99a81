package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The JUnit 5 extension: one server per class, a fresh bucket per parameter. */
@ExtendWith(GcsFakeServerExtension.class)
class GcsFakeServerExtensionTest {

  private final GcsFakeServer classServer;

  GcsFakeServerExtensionTest(GcsFakeServer classServer) {
    this.classServer = classServer;
  }

  @Test
  void resolve_givesTheClassServerAndDistinctEmptyBuckets(GcsFakeServer server, GcsFakeBucket one, GcsFakeBucket two) {
    assertThat(server).isSameAs(classServer);
    assertThat(one.server()).isSameAs(server);
    assertThat(one.name()).isNotEqualTo(two.name());
    assertThat(server.objectNames(one.name())).isEmpty();
    assertThat(one.endpoint().toString()).startsWith("http://127.0.0.1:");
  }

  @Test
  void resolve_inAnotherTest_givesTheSameServer(GcsFakeServer server) {
    assertThat(server).isSameAs(classServer);
  }
}
