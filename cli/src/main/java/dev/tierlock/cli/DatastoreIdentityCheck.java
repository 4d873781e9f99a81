package dev.tierlock.cli;

import dev.tierlock.spi.DatastoreIdentity;

/** {@code datastore-identity}: the datastore's scheme, endpoint, container and prefix, and the namespace. */
final class DatastoreIdentityCheck implements DoctorCheck {

  static final String NAME = "datastore-identity";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public DoctorFinding run(DoctorContext doctor) {
    DatastoreIdentity id = doctor.datastore().identity();
    return DoctorFinding.ok(NAME, "scheme " + id.scheme() + ", endpoint " + orNone(id.endpoint())
        + ", container " + orNone(id.container()) + ", prefix " + orNone(id.prefix()) + ", namespace "
        + doctor.namespace().name().orElse("(none)"));
  }

  private static String orNone(String part) {
    return part.isEmpty() ? "(none)" : part;
  }
}
