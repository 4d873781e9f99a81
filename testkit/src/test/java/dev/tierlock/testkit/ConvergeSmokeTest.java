package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.Heartbeats;
import dev.tierlock.LockIdentity;
import dev.tierlock.Tierlock;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.Converger;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.install.Installer;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConvergeSmokeTest {

  @TempDir Path temp;

  private Tierlock open(FakeRemote remote, TestClock clock, String name) {
    Heartbeats never = (lock, interval, beat) -> () -> { };
    return Tierlock.builder().datastore(remote).checkout(temp.resolve(name)).environment(Environment.system()
            .withClock(clock).withSleeper(clock.sleeper()).withRandom(new SplittableRandom(1)).withHeartbeats(never)
            .withLockIdentity(LockIdentity.of("t@" + name, "h", 1))).build();
  }

  @Test
  void smoke() {
    FakeRemote remote = FakeRemote.create();
    TestClock clock = TestClock.create();
    FakeRegistry registry = FakeRegistry.create();
    registry.publish("@acme/a", "1.0.0", TestArchives.extension("@acme/a", "1.0.0").file("x.txt", "x").build());
    registry.publish("@acme/b", "1.0.0", TestArchives.extension("@acme/b", "1.0.0").file("y.txt", "y").build());
    registry.publish("@acme/b", "2.0.0", TestArchives.extension("@acme/b", "2.0.0").file("y.txt", "y2").build());
    try (Tierlock a = open(remote, clock, "a"); Tierlock b = open(remote, clock, "b")) {
      Installer ia = Installer.builder(a, TempDirLayout.in(a.checkoutDirectory())).registry(registry).clock(clock).build();
      ia.install(InstallRequest.parse("@acme/a@1.0.0"), Catalog.NONE);
      ia.install(InstallRequest.parse("@acme/b@1.0.0"), Catalog.NONE);
      Converger cb = Converger.builder(b, TempDirLayout.in(b.checkoutDirectory())).clock(clock).build();
      ConvergeReport first = cb.converge();
      System.out.println(first);
      assertThat(first.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
      assertThat(first.restored()).extracting(ExtensionName::value).containsExactly("@acme/a", "@acme/b");
      ConvergeReport second = cb.converge();
      System.out.println(second);
      assertThat(second.outcome()).isEqualTo(ConvergeReport.Outcome.UNCHANGED);
      assertThat(second.requests()).isEqualTo(1);
      assertThat(second.bytes()).isZero();
      ConvergeReport known = cb.convergeIfChanged(second.lockfileVersion().orElseThrow());
      assertThat(known.requests()).isZero();
      ia.install(InstallRequest.parse("@acme/b@2.0.0"), Catalog.NONE);
      ia.remove(ExtensionName.of("@acme/a"), Catalog.NONE);
      ConvergeReport third = cb.converge();
      System.out.println(third);
      assertThat(third.restored()).extracting(ExtensionName::value).containsExactly("@acme/b");
      assertThat(third.removed()).extracting(ExtensionName::value).containsExactly("@acme/a");
      System.out.println(cb.status());
    }
  }
}
