package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class LockfileCodecPropertyTest {

  @Provide
  Arbitrary<Lockfile> lockfiles() {
    return LockfileArbitraries.lockfiles();
  }

  @Property(tries = 300)
  void encodeThenDecode_isIdentityAndReEncodesByteForByte(@ForAll("lockfiles") Lockfile lockfile) {
    byte[] bytes = LockfileCodec.encode(lockfile);
    Lockfile decoded = LockfileCodec.decode(bytes, "generated");

    assertThat(decoded).isEqualTo(lockfile);
    assertThat(decoded.names()).containsExactlyElementsOf(lockfile.names());
    assertThat(LockfileCodec.encode(decoded)).isEqualTo(bytes);
  }
}
