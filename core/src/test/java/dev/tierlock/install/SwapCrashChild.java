package dev.tierlock.install;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The child JVM of {@link SwapCrashTest}: runs one swap scenario on a {@link SwapFixture} directory
 * the parent prepared, and at one boundary prints {@code at <boundary>} and blocks until the parent
 * kills it. Arguments: scenario ({@code upgrade}, {@code removal} or {@code rollback}), directory,
 * boundary.
 */
final class SwapCrashChild {

  private SwapCrashChild() {}

  public static void main(String[] args) throws Exception {
    String boundary = args[2];
    run(args[0], new SwapFixture(Path.of(args[1])), seen -> {
      if (seen.equals(boundary)) {
        System.out.println("at " + seen);
        System.out.flush();
        try {
          new CountDownLatch(1).await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }, new OwnerIds());
    System.out.println("done");
  }

  /** Runs {@code scenario} on {@code fixture} (version 1 installed, version 2's sources written). */
  static void run(String scenario, SwapFixture fixture, SwapBoundary hook, OwnerIds owners) {
    switch (scenario) {
      case "upgrade" -> {
        Swap swap = Swap.stage(fixture.upgrade(), fixture.layout, owners, hook);
        swap.swap();
        swap.commit();
      }
      case "removal" -> {
        Swap swap = Swap.stage(fixture.removal(), fixture.layout, owners, hook);
        swap.swap();
        swap.commit();
      }
      case "rollback" -> {
        Swap swap = Swap.stage(fixture.upgrade(), fixture.layout, owners, hook);
        swap.swap();
        swap.rollback();
      }
      default -> throw new IllegalArgumentException("Cannot run scenario " + scenario + ": unknown");
    }
  }
}
