// A pull request across three pushes, for the review-across-pushes tests and
// the bench: the first push has two problems; the second fixes one (its
// line changes) and adds a third in a new file; the third is a force push
// (a rebase: the second push's commit is gone from the branch).
import type { ServerFile, ServerPull } from './github-state.ts'
import type { Push } from './github-compare.ts'
import { findingsBlock } from './review-pull.ts'

export const PUSH_SHAS = ['1'.repeat(40), '2'.repeat(40), '3'.repeat(40)]

/** src/limits.ts as the first push adds it (8 lines). */
export const LIMITS_V1 = [
  'export function clamp(n: number, max: number): number {',
  '  if (n > max) return max',
  '  return n',
  '}',
  '',
  'export function parsePort(text: string): number {',
  '  return Number(text)',
  '}'
]
const limitsV2 = [
  ...LIMITS_V1.slice(0, 6),
  '  const port = Number.parseInt(text, 10)',
  '  if (!(port > 0 && port < 65536)) throw new Error(`bad port: ${text}`)',
  '  return port',
  '}'
]
const retry = [
  'export async function retry<T>(work: () => Promise<T>): Promise<T> {',
  '  for (;;) {',
  '    try { return await work() } catch { continue }',
  '  }',
  '}'
]

function added(file: string, lines: string[]): string {
  return [
    `diff --git a/${file} b/${file}`,
    'new file mode 100644',
    '--- /dev/null',
    `+++ b/${file}`,
    `@@ -0,0 +1,${lines.length} @@`,
    ...lines.map((l) => `+${l}`),
    ''
  ].join('\n')
}

const fileOf = (filename: string, additions: number): ServerFile => ({
  filename,
  status: 'added',
  additions,
  deletions: 0
})

/**
 * The whole pull request's diff and files at each push. `bulk` lines of a
 * table file the first push adds and no later push touches: the part of a
 * real pull request a second review need not read again.
 */
function diffAt(push: number, bulk: number): string {
  const table = Array.from(
    { length: bulk },
    (_, i) => `  { code: ${i}, name: 'status-${i}', retry: ${i % 3 === 0} },`
  )
  const extra = bulk
    ? added('src/table.ts', ['export const TABLE = [', ...table, ']'])
    : ''
  return push === 0
    ? added('src/limits.ts', LIMITS_V1) + extra
    : added('src/limits.ts', limitsV2) + added('src/retry.ts', retry) + extra
}
function filesAt(push: number, bulk: number): ServerFile[] {
  const extra = bulk ? [fileOf('src/table.ts', bulk + 2)] : []
  return push === 0
    ? [fileOf('src/limits.ts', LIMITS_V1.length), ...extra]
    : [
        fileOf('src/limits.ts', limitsV2.length),
        fileOf('src/retry.ts', 5),
        ...extra
      ]
}

/** The change of the second push alone (what compare gives). */
const SECOND_CHANGE =
  [
    'diff --git a/src/limits.ts b/src/limits.ts',
    '--- a/src/limits.ts',
    '+++ b/src/limits.ts',
    '@@ -6,3 +6,5 @@ export function parsePort(text: string): number {',
    ' export function parsePort(text: string): number {',
    '-  return Number(text)',
    '+  const port = Number.parseInt(text, 10)',
    '+  if (!(port > 0 && port < 65536)) throw new Error(`bad port: ${text}`)',
    '+  return port',
    ' }',
    ''
  ].join('\n') + added('src/retry.ts', retry)

export function pushesPull(bulk = 0): ServerPull {
  return {
    title: 'Limits and a retry helper',
    body: 'Adds clamp, parsePort and retry.',
    author: { login: 'alice-maintainer', id: 5550001, type: 'User' },
    base: { ref: 'main', sha: 'a'.repeat(40), repo: 'octo-org/octo-repo' },
    head: {
      ref: 'limits',
      sha: PUSH_SHAS[0] as string,
      repo: 'octo-org/octo-repo'
    },
    files: filesAt(0, bulk),
    diff: diffAt(0, bulk)
  }
}

/** The second push (index 1) or the third, a force push (index 2). */
export function pushOf(index: 1 | 2, bulk = 0): Push {
  const at = {
    sha: PUSH_SHAS[index] as string,
    diff: diffAt(index, bulk),
    files: filesAt(index, bulk)
  }
  return index === 1 ? { ...at, change: SECOND_CHANGE } : { ...at, force: true }
}

export const CLAMP = {
  file: 'src/limits.ts',
  line: 2,
  severity: 'concern',
  title: 'clamp lets negative numbers through',
  explanation: 'clamp only checks the upper bound.'
}
export const PORT = {
  file: 'src/limits.ts',
  line: 7,
  severity: 'blocker',
  title: 'parsePort accepts text that is not a port',
  explanation: 'Number("abc") is NaN and Number("99999") is out of range.'
}
export const RETRY = {
  file: 'src/retry.ts',
  line: 3,
  severity: 'blocker',
  title: 'retry loops forever without waiting',
  explanation: 'A failing call is retried at once, forever.'
}

/** What both agents report at each push. */
export const FINDINGS_AT = [[CLAMP, PORT], [RETRY], [CLAMP, RETRY]]

export function answerAt(push: number, agent: string): string {
  return [
    `Review by ${agent} of push ${push + 1}.`,
    '',
    findingsBlock(FINDINGS_AT[push] ?? [])
  ].join('\n')
}

const retryFixed = [
  ...retry.slice(0, 2),
  '    try { return await work() } catch { await new Promise((r) => setTimeout(r, 1000)) }',
  ...retry.slice(3)
]

/**
 * A third push that is not forced (the bench's): it fixes the retry loop,
 * so its change since the second push is one line.
 */
export function retryFixPush(bulk = 0): Push {
  const table = diffAt(2, bulk).split('diff --git a/src/table.ts')[1]
  return {
    sha: '4'.repeat(40),
    diff:
      added('src/limits.ts', limitsV2) +
      added('src/retry.ts', retryFixed) +
      (table ? `diff --git a/src/table.ts${table}` : ''),
    files: filesAt(2, bulk),
    change: [
      'diff --git a/src/retry.ts b/src/retry.ts',
      '--- a/src/retry.ts',
      '+++ b/src/retry.ts',
      '@@ -1,5 +1,5 @@',
      ...retry.slice(0, 2).map((l) => ` ${l}`),
      `-${retry[2] ?? ''}`,
      `+${retryFixed[2] ?? ''}`,
      ...retry.slice(3).map((l) => ` ${l}`),
      ''
    ].join('\n')
  }
}

/**
 * A push after the first that leaves src/limits.ts alone: it only adds the
 * retry helper, so every finding on limits.ts keeps its line.
 */
export function retryOnlyPush(sha = '5'.repeat(40)): Push {
  return {
    sha,
    diff: added('src/limits.ts', LIMITS_V1) + added('src/retry.ts', retry),
    files: [
      fileOf('src/limits.ts', LIMITS_V1.length),
      fileOf('src/retry.ts', retry.length)
    ],
    change: added('src/retry.ts', retry)
  }
}

/**
 * A push after the first that only renames src/limits.ts to src/ports.ts
 * (`git mv`, no line changed) and adds the retry helper; `force` makes it a
 * rewritten branch instead (the comparison with the reviewed commit then
 * names no rename).
 */
export function renamePush(sha = '6'.repeat(40), force = false): Push {
  const diff = added('src/ports.ts', LIMITS_V1) + added('src/retry.ts', retry)
  const files = [
    fileOf('src/ports.ts', LIMITS_V1.length),
    fileOf('src/retry.ts', retry.length)
  ]
  if (force) return { sha, diff, files, force: true }
  return {
    sha,
    diff,
    files,
    change:
      [
        'diff --git a/src/limits.ts b/src/ports.ts',
        'similarity index 100%',
        'rename from src/limits.ts',
        'rename to src/ports.ts',
        ''
      ].join('\n') + added('src/retry.ts', retry)
  }
}

/** A push after the first that deletes src/limits.ts and adds the retry helper. */
export function deletePush(sha = '7'.repeat(40)): Push {
  return {
    sha,
    diff: added('src/retry.ts', retry),
    files: [fileOf('src/retry.ts', retry.length)],
    change:
      [
        'diff --git a/src/limits.ts b/src/limits.ts',
        'deleted file mode 100644',
        '--- a/src/limits.ts',
        '+++ /dev/null',
        `@@ -1,${LIMITS_V1.length} +0,0 @@`,
        ...LIMITS_V1.map((l) => `-${l}`),
        ''
      ].join('\n') + added('src/retry.ts', retry)
  }
}
