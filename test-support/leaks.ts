// Where a key value or the action's internals show after a run.
import { expect } from '@jest/globals'
import * as fs from 'node:fs'
import { secretForms } from '../src/safety/redact.ts'
import { KEYS } from './fixtures.ts'
import type { GitHubServer } from './github-server.ts'
import { listFiles, type ActionRun } from './run-action.ts'

/**
 * Where a key value shows: any file the run wrote (work folder, config,
 * MassGen's logs, outputs, summary), any request sent to GitHub, the outputs,
 * the saved state or the logs. `::add-mask::` lines are the runner's masking
 * commands: the runner consumes them and never shows them.
 */
export function findKeyLeaks(
  run: ActionRun,
  server: GitHubServer | undefined,
  keys: string[] = Object.values(KEYS),
  extraDirs: string[] = []
): string[] {
  const logs = (text: string) =>
    text
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n')
  const texts: [string, string][] = [
    ['stdout', logs(run.stdout)],
    ['stderr', logs(run.stderr)],
    ['post stdout', logs(run.post?.stdout ?? '')],
    ['post stderr', logs(run.post?.stderr ?? '')],
    ['outputs', JSON.stringify(run.outputs)],
    ['state', JSON.stringify(run.state)],
    ...[run.dir, ...extraDirs]
      .flatMap((d) => listFiles(d))
      .map((f): [string, string] => [f, fs.readFileSync(f, 'latin1')]),
    ...(server?.requests ?? []).map((r): [string, string] => [
      `${r.method} ${r.path}`,
      `${JSON.stringify(r.body) ?? ''} ${JSON.stringify(r.query)} ${JSON.stringify(r.headers)}`
    ])
  ]
  // Each key as it is and in every encoded form an attacker would use that
  // the action recognises (base64, hex, URL-encoded, reversed).
  const forms = keys.flatMap((k) =>
    secretForms(k).map((form) => ({
      form,
      label: `${k.slice(0, 6)}...${form === k ? '' : ' (encoded)'}`
    }))
  )
  return texts.flatMap(([where, text]) =>
    forms
      .filter(({ form }) => text.includes(form))
      .map(({ label }) => `${label} in ${where}`)
  )
}

export function expectNoKeyLeak(
  run: ActionRun,
  server: GitHubServer,
  keys: string[] = Object.values(KEYS)
): void {
  expect(findKeyLeaks(run, server, keys)).toEqual([])
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
