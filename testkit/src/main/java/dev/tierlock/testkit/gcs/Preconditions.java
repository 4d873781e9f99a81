package dev.tierlock.testkit.gcs;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The four GCS preconditions of one request, as sent in the query ({@code ifGenerationMatch},
 * {@code ifGenerationNotMatch}, {@code ifMetagenerationMatch}, {@code ifMetagenerationNotMatch}).
 * A null component is a precondition the request did not carry. Checked by {@link ObjectStore}
 * while it holds the object's lock, so the check and the change it guards are one step.
 *
 * @param generationMatch {@code ifGenerationMatch}; 0 means "no live object"
 * @param generationNotMatch {@code ifGenerationNotMatch}; 0 means "a live object exists"
 * @param metagenerationMatch {@code ifMetagenerationMatch}
 * @param metagenerationNotMatch {@code ifMetagenerationNotMatch}
 */
record Preconditions(
    @Nullable Long generationMatch,
    @Nullable Long generationNotMatch,
    @Nullable Long metagenerationMatch,
    @Nullable Long metagenerationNotMatch) {

  /** No precondition. */
  static final Preconditions NONE = new Preconditions(null, null, null, null);

  /** What the request does with the object: a read may answer 304 where a write answers 412. */
  enum Use {
    READ,
    WRITE
  }

  /**
   * Parses the preconditions of a query.
   *
   * @throws GcsFakeException 400 when a value is not a non-negative integer
   */
  static Preconditions from(Map<String, String> query) {
    return new Preconditions(
        number(query, "ifGenerationMatch"),
        number(query, "ifGenerationNotMatch"),
        number(query, "ifMetagenerationMatch"),
        number(query, "ifMetagenerationNotMatch"));
  }

  boolean isEmpty() {
    return generationMatch == null
        && generationNotMatch == null
        && metagenerationMatch == null
        && metagenerationNotMatch == null;
  }

  /**
   * Checks the preconditions of an upload against the live object, which may be absent.
   *
   * @throws GcsFakeException 412 when one does not hold
   */
  void checkUpload(@Nullable FakeObject live, String action) {
    long generation = live == null ? 0 : live.generation();
    if (generationMatch != null && generationMatch != generation) {
      throw failed(action, "ifGenerationMatch=" + generationMatch, live);
    }
    if (generationNotMatch != null && generationNotMatch == generation) {
      throw failed(action, "ifGenerationNotMatch=" + generationNotMatch, live);
    }
    if (metagenerationMatch != null && (live == null || live.metageneration() != metagenerationMatch)) {
      throw failed(action, "ifMetagenerationMatch=" + metagenerationMatch, live);
    }
    if (metagenerationNotMatch != null && live != null && live.metageneration() == metagenerationNotMatch) {
      throw failed(action, "ifMetagenerationNotMatch=" + metagenerationNotMatch, live);
    }
  }

  /**
   * Checks the preconditions of a request on an existing object (get, download, patch, delete).
   *
   * @throws GcsFakeException 412 when a match does not hold; for a read, 304 when a not-match does
   *     not hold (412 for a write)
   */
  void checkExisting(FakeObject live, Use use, String action) {
    if (generationMatch != null && generationMatch != live.generation()) {
      throw failed(action, "ifGenerationMatch=" + generationMatch, live);
    }
    if (metagenerationMatch != null && metagenerationMatch != live.metageneration()) {
      throw failed(action, "ifMetagenerationMatch=" + metagenerationMatch, live);
    }
    if (generationNotMatch != null && generationNotMatch == live.generation()) {
      throw use == Use.READ ? GcsFakeException.notModified()
          : failed(action, "ifGenerationNotMatch=" + generationNotMatch, live);
    }
    if (metagenerationNotMatch != null && metagenerationNotMatch == live.metageneration()) {
      throw use == Use.READ ? GcsFakeException.notModified()
          : failed(action, "ifMetagenerationNotMatch=" + metagenerationNotMatch, live);
    }
  }

  private static GcsFakeException failed(String action, String condition, @Nullable FakeObject live) {
    String state = live == null ? "no live object"
        : "live generation " + live.generation() + ", metageneration " + live.metageneration();
    return GcsFakeException.conditionNotMet(
        "Cannot " + action + ": the precondition " + condition + " does not hold (" + state + ")");
  }

  private static @Nullable Long number(Map<String, String> query, String name) {
    String text = query.get(name);
    if (text == null) {
      return null;
    }
    try {
      long value = Long.parseLong(text);
      if (value >= 0) {
        return value;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw GcsFakeException.invalid("Cannot use " + name + "=" + text + ": not a non-negative integer");
  }
}
