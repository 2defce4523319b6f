// `npm run eval -- corpus-inject --out <dir>`: the injected-bug corpus. Each
// case is one file of this project's own src/, as it was at a pinned commit
// (a copy in __fixtures__/eval/injected-source/, so the cases come out the
// same byte for byte on every run, whatever src/ has become), with one bug
// put in by a hand-written mutation (an off-by-one, a dropped await, an
// inverted condition, a missing bounds check, a leaked handle, a swapped
// argument, a wrong bound) or, for the clean cases, a refactor that changes
// no behaviour. The known problem is the mutated line(s) on the head side;
// the pull request's title and description say nothing of the bug, and are
// the same for bug and clean cases. docs/evaluation.md, "Injected bugs".
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { ROOT } from '../../test-support/run-action.ts'
import type { KnownProblem } from './score.ts'

/** The commit whose src/ the mutations apply to (SOURCE_DIR holds its files). */
export const PINNED_COMMIT = 'f07641eee1377c4e61634a37273bc48542634d02'

export type Kind =
  | 'off-by-one'
  | 'dropped-await'
  | 'inverted-condition'
  | 'missing-bounds-check'
  | 'leaked-handle'
  | 'swapped-argument'
  | 'wrong-bound'
  | 'refactor'

export interface Mutation {
  id: string
  kind: Kind
  file: string
  /** Exact text (unique in the file) and what replaces it; a bug has one edit. */
  edits: Array<[find: string, replace: string]>
}

const bug = (
  id: string,
  kind: Kind,
  file: string,
  find: string,
  replace: string
): Mutation => ({ id, kind, file, edits: [[find, replace]] })

export const MUTATIONS: Mutation[] = [
  bug(
    'render-clip',
    'off-by-one',
    'src/report/render.ts',
    'if (text.length <= max) return text',
    'if (text.length < max) return text'
  ),
  bug(
    'command-scan',
    'off-by-one',
    'src/event/command.ts',
    'while (i < text.length) {',
    'while (i <= text.length) {'
  ),
  bug(
    'check-run-batches',
    'off-by-one',
    'src/review/check-run.ts',
    'i < content.annotations.length;',
    'i <= content.annotations.length;'
  ),
  bug(
    'group-slack',
    'off-by-one',
    'src/review/group.ts',
    'return a1 - LINE_SLACK <= b2 && b1 - LINE_SLACK <= a2',
    'return a1 - LINE_SLACK < b2 && b1 - LINE_SLACK <= a2'
  ),
  bug(
    'comment-limit',
    'off-by-one',
    'src/report/report.ts',
    'GitHubCommentLimit - stickyMarker(tag).length - 1',
    'GitHubCommentLimit - stickyMarker(tag).length + 1'
  ),
  bug(
    'long-line',
    'off-by-one',
    'src/process/process.ts',
    'onLine(pending.slice(0, MAX_LINE))',
    'onLine(pending.slice(0, MAX_LINE + 1))'
  ),
  bug(
    'ballot-cap',
    'off-by-one',
    'src/review/ballot.ts',
    'groups.slice(0, MAX_VOTED_FINDINGS)',
    'groups.slice(1, MAX_VOTED_FINDINGS)'
  ),
  bug(
    'scrub-post',
    'dropped-await',
    'src/pipeline/post-step.ts',
    'if (workDir) await scrubSecrets(workDir, secrets)',
    'if (workDir) scrubSecrets(workDir, secrets)'
  ),
  bug(
    'reactions-finish',
    'dropped-await',
    'src/pipeline/main-step.ts',
    'await ran.reactions.finish(ran.result.outcome)',
    'ran.reactions.finish(ran.result.outcome)'
  ),
  bug(
    'write-summary',
    'dropped-await',
    'src/report/report.ts',
    "await writeSummary(dest, renderReport(result, ctx('summary')))",
    "writeSummary(dest, renderReport(result, ctx('summary')))"
  ),
  bug(
    'agent-file-write',
    'dropped-await',
    'src/safety/agent-files.ts',
    'await h.writeFile(data)',
    'h.writeFile(data)'
  ),
  bug(
    'fresh-chmod',
    'dropped-await',
    'src/safety/agent-files.ts',
    'await fresh.handle.chmod(mode)',
    'fresh.handle.chmod(mode)'
  ),
  bug(
    'gate-allowed',
    'inverted-condition',
    'src/event/gate.ts',
    'if (!result.allowed) return result',
    'if (result.allowed) return result'
  ),
  bug(
    'intake-gate',
    'inverted-condition',
    'src/event/intake.ts',
    'if (!gate.allowed) return refused(gate, { issueNumber: trigger.number })',
    'if (gate.allowed) return refused(gate, { issueNumber: trigger.number })'
  ),
  bug(
    'fork-bot',
    'inverted-condition',
    'src/event/intake.ts',
    'if (!trigger.fromFork && !trigger.authorIsBot) return false',
    'if (trigger.fromFork && !trigger.authorIsBot) return false'
  ),
  bug(
    'same-source',
    'inverted-condition',
    'src/event/setup-source.ts',
    'if (!a || !b) return false',
    'if (!a && !b) return false'
  ),
  bug(
    'comment-time',
    'inverted-condition',
    'src/event/head-check.ts',
    'if (!commentCreatedAt) return passed',
    'if (commentCreatedAt) return passed'
  ),
  bug(
    'split-majority',
    'inverted-condition',
    'src/review/split.ts',
    'return Math.max(...counts.values()) * 2 <= cast',
    'return Math.max(...counts.values()) * 2 > cast'
  ),
  bug(
    'failure-reason',
    'inverted-condition',
    'src/report/render-parts.ts',
    "if (!reason || result.outcome === 'success') return ''",
    "if (!reason || result.outcome !== 'success') return ''"
  ),
  bug(
    'query-size',
    'missing-bounds-check',
    'src/event/intake.ts',
    'if (bytes > MAX_QUERY_BYTES) {',
    'if (bytes > MAX_QUERY_BYTES * 4) {'
  ),
  bug(
    'findings-cap',
    'missing-bounds-check',
    'src/review/findings.ts',
    '      findings.length < MAX_FINDINGS_PER_AGENT\n        ? checkFinding(agent, item, changed)\n        : undefined',
    '      checkFinding(agent, item, changed)'
  ),
  bug(
    'block-size',
    'missing-bounds-check',
    'src/review/findings.ts',
    "  return size > MAX_BLOCK_CHARS\n    ? { state: 'too-large' }\n    : { state: 'found', text: last.body.join('\\n') }",
    "  return { state: 'found', text: last.body.join('\\n') }"
  ),
  bug(
    'suggestion-chars',
    'missing-bounds-check',
    'src/review/findings.ts',
    '  if (body.length > MAX_SUGGESTION_CHARS) return {}\n',
    ''
  ),
  bug(
    'path-climb',
    'missing-bounds-check',
    'src/review/findings.ts',
    "if (trimmed.startsWith('/') || trimmed.split('/').includes('..'))",
    "if (trimmed.startsWith('/'))"
  ),
  bug(
    'artifact-handle',
    'leaked-handle',
    'src/report/artifact.ts',
    '    } finally {\n      await file.handle.close()\n    }',
    '    } finally {\n      // The handle goes with the process.\n    }'
  ),
  bug(
    'open-regular',
    'leaked-handle',
    'src/safety/agent-files.ts',
    '    (options.singleLink && stat.nlink > 1)\n  ) {\n    await handle.close()\n    return undefined',
    '    (options.singleLink && stat.nlink > 1)\n  ) {\n    return undefined'
  ),
  bug(
    'scrub-handle',
    'leaked-handle',
    'src/safety/scrub.ts',
    '    } finally {\n      await file.handle.close()\n    }',
    '    } catch (error) {\n      throw error\n    }'
  ),
  bug(
    'tracker-close',
    'leaked-handle',
    'src/vote/quick-round.ts',
    '  tracker.close()\n',
    ''
  ),
  bug(
    'workspace-folders',
    'leaked-handle',
    'src/safety/workspace-file.ts',
    '  } finally {\n    opened.forEach((f) => f.close())\n  }',
    '  }'
  ),
  bug(
    'severity-order',
    'swapped-argument',
    'src/review/post.ts',
    'if (!atLeast(group.severity, input.minSeverity))',
    'if (!atLeast(input.minSeverity, group.severity))'
  ),
  bug(
    'duration-floor',
    'wrong-bound',
    'src/report/render-parts.ts',
    'const total = Math.max(0, Math.round(seconds))',
    'const total = Math.min(0, Math.round(seconds))'
  ),
  bug(
    'question-limit',
    'wrong-bound',
    'src/report/render-parts.ts',
    'const limit = Math.max(500, Math.floor(maxChars / 8))',
    'const limit = Math.min(500, Math.floor(maxChars / 8))'
  ),
  bug(
    'pid-guard',
    'inverted-condition',
    'src/process/process.ts',
    'if (pid <= 0) return',
    'if (pid > 0) return'
  ),
  // Clean: refactors that change no behaviour.
  {
    id: 'workspace-folders-loop',
    kind: 'refactor',
    file: 'src/safety/workspace-file.ts',
    edits: [
      [
        'opened.forEach((f) => f.close())',
        'for (const folder of opened) folder.close()'
      ]
    ]
  },
  {
    id: 'duration-names',
    kind: 'refactor',
    file: 'src/report/render-parts.ts',
    edits: [
      [
        "  const h = Math.floor(total / 3600)\n  const m = Math.floor((total % 3600) / 60)\n  const s = total % 60\n  if (h) return `${h}h ${String(m).padStart(2, '0')}m`\n  if (m) return `${m}m ${String(s).padStart(2, '0')}s`\n  return `${s}s`",
        "  const hours = Math.floor(total / 3600)\n  const minutes = Math.floor((total % 3600) / 60)\n  const secs = total % 60\n  if (hours) return `${hours}h ${String(minutes).padStart(2, '0')}m`\n  if (minutes) return `${minutes}m ${String(secs).padStart(2, '0')}s`\n  return `${secs}s`"
      ]
    ]
  },
  {
    id: 'split-comment',
    kind: 'refactor',
    file: 'src/review/split.ts',
    edits: [
      [
        '// than half of the votes cast. Pure.',
        '// than half of the votes cast (a tie is unclear too). Pure.'
      ]
    ]
  },
  {
    id: 'artifact-handle-name',
    kind: 'refactor',
    file: 'src/report/artifact.ts',
    edits: [
      [
        "      const out = await fs.promises.open(target, 'wx', 0o600)\n      try {\n        await pipeHandles(file.handle, redactingStream(secrets), out, CHUNK)\n      } finally {\n        await out.close()\n      }",
        "      const written = await fs.promises.open(target, 'wx', 0o600)\n      try {\n        await pipeHandles(file.handle, redactingStream(secrets), written, CHUNK)\n      } finally {\n        await written.close()\n      }"
      ]
    ]
  },
  {
    id: 'query-bytes-name',
    kind: 'refactor',
    file: 'src/event/intake.ts',
    edits: [
      [
        "  const bytes = Buffer.byteLength(question, 'utf8')\n  if (bytes > MAX_QUERY_BYTES) {",
        "  const questionBytes = Buffer.byteLength(question, 'utf8')\n  if (questionBytes > MAX_QUERY_BYTES) {"
      ],
      [
        'reason: `The question is ${bytes} bytes;',
        'reason: `The question is ${questionBytes} bytes;'
      ]
    ]
  },
  {
    id: 'gate-early-return',
    kind: 'refactor',
    file: 'src/event/gate.ts',
    edits: [
      [
        'if (!result.allowed) return result',
        'if (result.allowed !== true) return result'
      ]
    ]
  }
]

/**
 * The mutated files as they were at PINNED_COMMIT, kept beside the corpus
 * (a checkout with no history, as CI's, has no such commit). Refreshed with
 * `git show <commit>:<file>` for each file MUTATIONS names.
 */
export const SOURCE_DIR = path.join(
  ROOT,
  '__fixtures__',
  'eval',
  'injected-source'
)

function textAt(file: string): string {
  return fs.readFileSync(path.join(SOURCE_DIR, file), 'utf8')
}

const lineOf = (text: string, index: number): number =>
  text.slice(0, index).split('\n').length

/**
 * The head-side lines an edit changes, from `start` (where it begins): the
 * lines it leaves as they were at either end are not the bug. A deletion
 * leaves the problem where the lines were.
 */
function changedLines(
  find: string,
  replace: string,
  start: number
): { start_line: number; end_line: number } {
  const before = find.split('\n')
  const after = replace.replace(/\n$/, '').split('\n')
  let head = 0
  while (
    head < Math.min(before.length, after.length) - 1 &&
    before[head] === after[head]
  )
    head++
  let tail = 0
  while (
    tail < Math.min(before.length, after.length) - head - 1 &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++
  const first = start + head
  return {
    start_line: first,
    end_line: Math.max(first, start + after.length - 1 - tail)
  }
}

/** The head side of a mutation and the lines its (one) bug edit covers. */
export function applyMutation(
  m: Mutation,
  base: string
): { head: string; expected: KnownProblem[] } {
  let head = base
  const expected: KnownProblem[] = []
  for (const [find, replace] of m.edits) {
    const at = head.indexOf(find)
    if (at < 0 || head.indexOf(find, at + 1) >= 0)
      throw new Error(
        `mutation ${m.id}: the text to replace is not exactly once in ${m.file}`
      )
    head = head.slice(0, at) + replace + head.slice(at + find.length)
    if (m.kind === 'refactor') continue
    expected.push({
      file: m.file,
      ...changedLines(find, replace, lineOf(head, at)),
      severity: 'concern'
    })
  }
  return { head, expected }
}

function unifiedDiff(file: string, base: string, head: string): string {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-eval-inject-'))
  try {
    for (const [side, text] of [
      ['a', base],
      ['b', head]
    ] as const) {
      const target = path.join(tmp, side, file)
      fs.mkdirSync(path.dirname(target), { recursive: true })
      fs.writeFileSync(target, text)
    }
    const run = spawnSync(
      'git',
      [
        'diff',
        '--no-index',
        '--no-color',
        '--no-prefix',
        `a/${file}`,
        `b/${file}`
      ],
      { cwd: tmp, encoding: 'utf8' }
    )
    if (run.status !== 1)
      throw new Error(`git diff --no-index failed: ${run.stderr}`)
    return run.stdout
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

/** Writes every case under `out`; returns the case folders. */
export function injectCorpus(out: string): string[] {
  const written: string[] = []
  let bugs = 0
  let clean = 0
  for (const m of MUTATIONS) {
    const base = textAt(m.file)
    const { head, expected } = applyMutation(m, base)
    const n = m.kind === 'refactor' ? ++clean : ++bugs
    const name = `${m.kind === 'refactor' ? 'clean' : 'bug'}-${String(n).padStart(2, '0')}-${m.id}`
    const dir = path.join(out, name)
    const target = path.join(dir, 'files', m.file)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.writeFileSync(target, head)
    fs.writeFileSync(
      path.join(dir, 'diff.patch'),
      unifiedDiff(m.file, base, head)
    )
    fs.writeFileSync(
      path.join(dir, 'pr.json'),
      `${JSON.stringify({ title: `Small change in ${path.basename(m.file)}`, body: `A small change to ${m.file}.` }, null, 2)}\n`
    )
    fs.writeFileSync(
      path.join(dir, 'expected.json'),
      `${JSON.stringify(
        expected.map((k) => ({ ...k, kind: m.kind })),
        null,
        2
      )}\n`
    )
    written.push(dir)
  }
  return written
}
