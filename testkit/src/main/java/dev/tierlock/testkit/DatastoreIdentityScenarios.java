package dev.tierlock.testkit;

import static dev.tierlock.testkit.DatastoreSteps.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreIdentity;
import java.util.concurrent.Callable;

/**
 * The {@link DatastoreContract} cases about what names a store: its description is a URI, and its
 * {@link Datastore#identity()} is stable and differs between two fresh stores.
 */
final class DatastoreIdentityScenarios {

  private final DatastoreSteps steps;
  private final Datastore store;

  DatastoreIdentityScenarios(DatastoreSteps steps) {
    this.steps = steps;
    this.store = steps.store();
  }

  void describe_namesTheStoreAsAUri() {
    assertThat(store.describe()).isNotBlank().contains("://");
  }

  void identity_isStableAndDiffersBetweenTwoFreshStores(Callable<Datastore> createDatastore) throws Exception {
    DatastoreIdentity identity = store.identity();
    assertThat(store.identity()).isEqualTo(identity);
    steps.create(key("config/identity.json"), "written");
    assertThat(store.identity()).as("identity after a write").isEqualTo(identity);

    Datastore other = createDatastore.call();
    try {
      assertThat(other.identity()).as("identity of a second fresh store").isNotEqualTo(identity);
      assertThat(other.identity().scheme()).as("scheme of a second fresh store").isEqualTo(identity.scheme());
      assertThat(other.list("")).as("a second fresh store must be empty").isEmpty();
    } finally {
      other.close();
    }
    assertThat(store.identity()).isEqualTo(identity);
  }
}
