package dev.tierlock.cli;

/**
 * One check of {@code tierlock doctor}. A check reads, never writes (the self-check that {@code
 * --self-check} asks for aside), and reports what it cannot read as its finding, not as an
 * exception.
 */
interface DoctorCheck {

  /** Returns the check's name, as printed and in the JSON report. */
  String name();

  /** Runs the check on what {@code doctor} examines and returns its finding. */
  DoctorFinding run(DoctorContext doctor);
}
