module com.example.tierlock.memory {
  requires transitive dev.tierlock.core;

  exports com.example.tierlock.memory;

  provides dev.tierlock.spi.DatastoreProvider with com.example.tierlock.memory.MemoryDatastoreProvider;
}
