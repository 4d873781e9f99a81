package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class LockfileDeltaPropertyTest {

  @Provide
  Arbitrary<Lockfile> lockfiles() {
    return LockfileArbitraries.lockfiles();
  }

  @Provide
  Arbitrary<LockfileDelta> deltas() {
    return LockfileArbitraries.deltas();
  }

  @Property(tries = 300)
  void diffThenApply_reproducesAfter(@ForAll("lockfiles") Lockfile before, @ForAll("lockfiles") Lockfile after) {
    LockfileDelta delta = LockfileDelta.diff(before, after);

    assertThat(delta.applyTo(before)).isEqualTo(after);
    assertThat(LockfileDelta.diff(after, delta.applyTo(before)).isEmpty()).isTrue();
  }

  @Property(tries = 200)
  void keyOrder_isNotAChange(@ForAll("lockfiles") Lockfile lockfile) {
    Lockfile reordered = LockfileArbitraries.reordered(lockfile);

    assertThat(LockfileDelta.diff(lockfile, reordered).isEmpty()).isTrue();
    assertThat(reordered).isEqualTo(lockfile);
  }

  @Property(tries = 300)
  void then_isApplyingOneAfterTheOther(
      @ForAll("lockfiles") Lockfile base, @ForAll("deltas") LockfileDelta first, @ForAll("deltas") LockfileDelta later) {
    assertThat(first.then(later).applyTo(base)).isEqualTo(later.applyTo(first.applyTo(base)));
  }

  @Property(tries = 200)
  void then_isAssociative(
      @ForAll("deltas") LockfileDelta a, @ForAll("deltas") LockfileDelta b, @ForAll("deltas") LockfileDelta c) {
    assertThat(a.then(b).then(c)).isEqualTo(a.then(b.then(c)));
  }

  @Property(tries = 200)
  void applyTo_isIdempotent(@ForAll("lockfiles") Lockfile base, @ForAll("deltas") LockfileDelta delta) {
    Lockfile once = delta.applyTo(base);

    assertThat(delta.applyTo(once)).isEqualTo(once);
  }
}
