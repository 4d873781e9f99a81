package dev.tierlock;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class DatastoresTest {

  @Test
  void open_registeredScheme_usesItsProviderWhateverTheCase() {
    assertThat(Datastores.open(URI.create("MEMORY://bucket/prefix"))).isInstanceOf(MemoryDatastore.class);
    assertThat(Datastores.schemes()).contains("memory");
  }

  @Test
  void open_unknownScheme_listsTheKnownSchemesWithoutCredentials() {
    assertThatThrownBy(() -> Datastores.open(URI.create("nope://user:secret@bucket/prefix")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot open datastore nope://bucket/prefix: no datastore provider handles its scheme; known schemes: ")
        .hasMessageContaining("memory")
        .hasMessageNotContaining("secret")
        .extracting(e -> ((InvalidInputException) e).code()).isEqualTo("unknown_scheme");
  }

  @Test
  void open_aUriTheProviderRefuses_failsWithItsReason() {
    assertThatThrownBy(() -> Datastores.open(URI.create("memory:/no-host")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot open memory:/no-host: a memory URI names a host");
  }
}
