// The helper's errors, each with its exit code; a message says what failed and what to do.
export type ExitCode = 0 | 1 | 2 | 3 | 4 | 5 | 64;

export class HelperError extends Error {
  readonly code: ExitCode;
  /** stderr lines printed before the refusal: what was done first and stays done (a repair). */
  before: string[] = [];
  constructor(message: string, code: ExitCode) {
    super(message);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Exit 2: refused for safety, compare-and-swap or validation; nothing on disk changed. */
export class Refused extends HelperError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** Exit 2 (64 for `check`, 0 for `hook`): a missing or wrong flag, kind or argument. */
export class UsageError extends HelperError {
  constructor(message: string) {
    super(message, 2);
  }
}

/** Exit 3: the file a verb needs does not exist. */
export class Absent extends HelperError {
  constructor(message: string) {
    super(message, 3);
  }
}

/** Exit 4: memory writes are paused by the kill switch; `switchPath` is what to remove. */
export class Paused extends HelperError {
  readonly switchPath: string;
  constructor(switchPath: string) {
    super(`memory writes are paused: remove ${switchPath} to resume`, 4);
    this.switchPath = switchPath;
  }
}

/** Exit 5: the memory lock was not had within `--lock-timeout`; `holder` says who has it. */
export class Busy extends HelperError {
  readonly holder: { who: string; lock: string };
  constructor(message: string, holder: { who: string; lock: string }) {
    super(message, 5);
    this.holder = holder;
  }
}
