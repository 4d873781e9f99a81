package dev.tierlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The bytes one warm put writes on the local disk: the writer's thread's {@code wchar} ({@link
 * ThreadWrites}) over a run of puts, with every datastore call made on another thread ({@link
 * OffThreadDatastore}) so that the fake remote's own files do not count. Nothing else writes on that
 * thread while it runs (the benchmark prints nothing meanwhile).
 */
final class LocalWrites {

  /**
   * One measurement.
   *
   * @param protocol who put
   * @param entries entries in the lockfile
   * @param lockfileBytes the lockfile's size
   * @param bytesPerPut local bytes written per put, empty where the kernel does not tell
   */
  record Measurement(PutProtocol protocol, int entries, int lockfileBytes, OptionalDouble bytesPerPut) {
    /** Returns local bytes over the lockfile's size. */
    OptionalDouble ratio() {
      return bytesPerPut.isPresent() ? OptionalDouble.of(bytesPerPut.getAsDouble() / lockfileBytes) : OptionalDouble.empty();
    }
  }

  private static final int PUTS = 20;

  private LocalWrites() {}

  /** Measures every protocol on lockfiles of each size in {@code sizes}. */
  static List<Measurement> measure(List<Integer> sizes) {
    List<Measurement> out = new ArrayList<>();
    for (int entries : sizes) {
      for (PutProtocol protocol : PutProtocol.values()) {
        out.add(measure(protocol, entries));
      }
    }
    return out;
  }

  private static Measurement measure(PutProtocol protocol, int entries) {
    try (PutFixture fixture = PutFixture.open(protocol, entries, OffThreadDatastore::new)) {
      fixture.put();
      OptionalLong before = ThreadWrites.now();
      for (int i = 0; i < PUTS; i++) {
        fixture.put();
      }
      OptionalLong after = ThreadWrites.now();
      OptionalDouble perPut = before.isPresent() && after.isPresent()
          ? OptionalDouble.of((after.getAsLong() - before.getAsLong()) / (double) PUTS)
          : OptionalDouble.empty();
      return new Measurement(protocol, entries, fixture.lockfileBytes(), perPut);
    }
  }
}
