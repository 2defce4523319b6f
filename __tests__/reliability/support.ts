// Shared set-up for the reliability suite: tallies for `npm run reliability`,
// a leak scanner that counts findings, and a batch runner for concurrent runs.
import { expect } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { GitHubServer } from '../../test-support/github-server.js'
import {
  FAKE_MASSGEN,
  ROOT,
  runAction,
  type ActionRun,
  type RunOptions
} from '../../test-support/run-action.js'
import { event, findKeyLeaks, githubWithPull, KEYS } from '../e2e/helpers.js'

export { event, githubWithPull, KEYS, FAKE_MASSGEN, ROOT }

/** The tallies `scripts/reliability.mjs` prints. */
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

/** Scans, tallies the findings, and fails the test on any. */
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

/** Processes (other than zombies) whose environment holds the marker. */
export function processesWithMarker(marker: string): number[] {
  const pids: number[] = []
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
      if (/^\d+ \(.*\) Z/.test(stat)) continue
      if (
        fs
          .readFileSync(`/proc/${pid}/environ`, 'latin1')
          .includes(`RELIABILITY_MARKER=${marker}`)
      )
        pids.push(Number(pid))
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids
}

/** Runs `task` over `items`, `size` at a time. */
export async function inBatches<T, R>(
  items: T[],
  size: number,
  task: (item: T) => Promise<R>
): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += size) {
    out.push(...(await Promise.all(items.slice(i, i + size).map(task))))
  }
  return out
}

/** Lines that look like a JavaScript stack trace. */
export function stackTraces(text: string): string[] {
  return text
    .split('\n')
    .filter(
      (l) =>
        /^\s+at .+(\(.*:\d+:\d+\)|:\d+:\d+)$/.test(l) ||
        /^\s*(\w*Error|TypeError): .*\n?\s+at /.test(l)
    )
}

/** GitHub writes: the requests that would change something. */
export function writes(server: GitHubServer): string[] {
  return server.requests
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`)
}

/**
 * Open to every user: local mode's sandbox runs the MassGen stand-in as
 * nobody when the tests run as root, and it writes its records here.
 */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `massgen-rel-${prefix}-`))
  fs.chmodSync(dir, 0o777)
  return dir
}

/** A pull_request run with the fake massgen and every key set. */
export function prRun(
  github: GitHubServer,
  inputs: Record<string, string>,
  env: Record<string, string | undefined> = {},
  extra: Partial<RunOptions> = {}
): Promise<ActionRun> {
  return runAction({
    eventName: 'pull_request',
    payload: event('pull_request.opened'),
    githubApiUrl: github.url,
    inputs: {
      query: 'Is the parser change safe?',
      models: 'openai/gpt-5.4 gemini/gemini-3.1-pro-preview',
      'openai-api-key': KEYS.openai,
      'gemini-api-key': KEYS.google,
      'anthropic-api-key': KEYS.anthropic,
      'xai-api-key': KEYS.xai,
      'massgen-command': `node ${FAKE_MASSGEN}`,
      'max-duration': '10',
      'upload-logs': 'false',
      'cache-massgen': 'false',
      ...inputs
    },
    env,
    ...extra
  })
}
