// The tallies `npm run reliability` prints (scripts/reliability.mjs), added
// to by the reliability and security tests as they run.
import { expect } from '@jest/globals'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { GitHubServer } from './github-server.ts'
import { KEYS } from './fixtures.ts'
import { findKeyLeaks } from './leaks.ts'
import type { ActionRun } from './run-action.ts'

export type Tally =
  | 'badInputs'
  | 'propertyCases'
  | 'faultScenarios'
  | 'githubFaults'
  | 'leakScans'
  | 'leaks'

/**
 * Adds to a tally. Lines go to `$RELIABILITY_COUNTS_DIR/counts.jsonl` (one
 * short append per call, so parallel workers do not clobber each other);
 * without the variable (plain `npm test`) nothing is written.
 */
export function tally(what: Tally, n = 1, label = ''): void {
  const dir = process.env.RELIABILITY_COUNTS_DIR
  if (!dir || n === 0) return
  fs.mkdirSync(dir, { recursive: true })
  const test = expect.getState().currentTestName ?? ''
  fs.appendFileSync(
    path.join(dir, 'counts.jsonl'),
    JSON.stringify({ what, n, label, test }) + '\n'
  )
}

/** Scans for leaks (leaks.ts), tallies the findings, and fails the test on any. */
export function expectNoLeak(
  run: ActionRun,
  server: GitHubServer | undefined,
  keys: string[] = Object.values(KEYS),
  extraDirs: string[] = []
): void {
  const leaks = findKeyLeaks(run, server, keys, extraDirs)
  tally('leakScans')
  tally('leaks', leaks.length)
  expect(leaks).toEqual([])
}
