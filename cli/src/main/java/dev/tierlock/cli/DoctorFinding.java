package dev.tierlock.cli;

import dev.tierlock.TierlockException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One finding of a {@code tierlock doctor} check.
 *
 * @param check the check's name
 * @param level how it ended
 * @param detail what it found
 * @param hint what to run or do, if anything
 * @param code the error code of a warning or failure, if it has one
 * @param exitCode the exit code a failure gives ({@link ExitCodes#OK} otherwise)
 */
record DoctorFinding(String check, Level level, String detail, @Nullable String hint, @Nullable String code,
    int exitCode) {

  /** How a check ended. */
  enum Level {
    OK,
    WARN,
    FAIL,
    SKIP;

    /** Returns the level as printed: {@code ok}, {@code warn}, {@code fail} or {@code skip}. */
    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  static DoctorFinding ok(String check, String detail) {
    return new DoctorFinding(check, Level.OK, detail, null, null, ExitCodes.OK);
  }

  static DoctorFinding ok(String check, String detail, @Nullable String hint) {
    return new DoctorFinding(check, Level.OK, detail, hint, null, ExitCodes.OK);
  }

  static DoctorFinding warn(String check, String detail, @Nullable String hint, @Nullable String code) {
    return new DoctorFinding(check, Level.WARN, detail, hint, code, ExitCodes.OK);
  }

  static DoctorFinding fail(String check, String detail, @Nullable String hint, @Nullable String code, int exitCode) {
    return new DoctorFinding(check, Level.FAIL, detail, hint, code, exitCode);
  }

  static DoctorFinding skip(String check, String why) {
    return new DoctorFinding(check, Level.SKIP, why, null, null, ExitCodes.OK);
  }

  /** A failure from {@code e}: its message after {@code what}, its code and its exit code. */
  static DoctorFinding failure(String check, String what, TierlockException e, @Nullable String hint) {
    return fail(check, what + ": " + e.getMessage(), hint, e.code(), ExitCodes.of(e));
  }
}
