// The one log every stage writes to: @actions/core in the action, a list in
// tests. A stage asks for the part it uses, so a test's log stays small.

export interface Log {
  info(message: string): void
  warning(message: string): void
  debug(message: string): void
}

/** What most stages say: progress and warnings. */
export type StageLog = Pick<Log, 'info' | 'warning'>
