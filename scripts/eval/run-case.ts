// One review of one case: the bundled action (dist/index.js) run as a
// runner runs it on a pull_request event (test-support/run-action.ts), the
// case served as pull request #42 by a loopback GitHub of its own, its
// head-side files as the checkout. What comes back is what the action said:
// its findings output, its status, and what MassGen measured of each round.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { startGitHubServer } from '../../test-support/github-server.ts'
import { event } from '../../test-support/fixtures.ts'
import {
  openTempDir,
  runAction,
  type ActionRun
} from '../../test-support/run-action.ts'
import { FIXTURE_HEAD_SHA } from '../../test-support/sample-pull.ts'
import { diffFiles, type EvalCase } from './corpus.ts'
import type { ActionFinding } from './select.ts'

export interface Measured {
  /** USD, as MassGen estimated it; null when it said nothing. */
  cost_usd: number | null
  tokens_in: number | null
  tokens_out: number | null
  seconds: number
}

export type RunOutcome =
  | {
      ok: true
      findings: ActionFinding[]
      /** The answers' MassGen run (the whole step's wall time less the vote round). */
      answers: Measured
      /** The vote round's MassGen run, when one ran. */
      voteRound?: Measured
      /** Agents whose answer held no readable findings block. */
      unreadable: number
    }
  | { ok: false; reason: string; answers: Measured }

export interface RunSettings {
  inputs: Record<string, string>
  env?: Record<string, string>
  pathExtra?: string[]
  /** A folder to keep the run's job summary and outputs in (`--keep`). */
  keep?: string
}

const number = (text: string | undefined): number | null => {
  if (text === undefined || text.trim() === '') return null
  const n = Number(text.replace(/,/g, ''))
  return Number.isFinite(n) ? n : null
}

/** The report's footer: `🔤 1,234 in / 56 out tokens`. */
function footerTokens(summary: string): {
  in: number | null
  out: number | null
} {
  const m = /🔤 ([\d,]+) in \/ ([\d,]+) out tokens/.exec(summary)
  return { in: number(m?.[1]), out: number(m?.[2]) }
}

/** `Finding vote: MassGen success in 1.5 s, 100 input + 20 output tokens` */
function voteLine(
  stdout: string
):
  | { seconds: number | null; in: number | null; out: number | null }
  | undefined {
  const m =
    /Finding vote: MassGen \S+ in ([\d.?]+) s, ([\d?]+) input \+ ([\d?]+) output tokens/.exec(
      stdout
    )
  return m
    ? { seconds: number(m[1]), in: number(m[2]), out: number(m[3]) }
    : undefined
}

/**
 * The vote round's cost: MassGen's status.json in the log folders beside
 * the answers' (the vote round is a second MassGen run with its own).
 */
function voteRoundCost(logDir: string | undefined): number | null {
  if (!logDir) return null
  const base = path.dirname(logDir)
  let total: number | null = null
  for (const entry of fs.readdirSync(base, { withFileTypes: true })) {
    const dir = path.join(base, entry.name)
    if (!entry.isDirectory() || dir === logDir) continue
    const status = path.join(dir, 'turn_1', 'attempt_1', 'status.json')
    try {
      const parsed = JSON.parse(fs.readFileSync(status, 'utf8')) as {
        costs?: { total_estimated_cost?: unknown }
      }
      const cost = parsed.costs?.total_estimated_cost
      if (typeof cost === 'number') total = (total ?? 0) + cost
    } catch {
      // No status.json there: not a round we can price.
    }
  }
  return total
}

/** `_2 agents gave no readable findings block._` of the report. */
function unreadableBlocks(summary: string): number {
  const m = /_(\d+) agents? gave no readable findings block\._/.exec(summary)
  return m ? Number(m[1]) : 0
}

function parseFindings(text: string | undefined): ActionFinding[] | undefined {
  if (!text) return undefined
  try {
    const parsed: unknown = JSON.parse(text)
    return Array.isArray(parsed) ? (parsed as ActionFinding[]) : undefined
  } catch {
    return undefined
  }
}

/**
 * When the action's log said the vote round started and ended: its wall
 * time, MassGen's start-up included (MassGen's own figure leaves that out).
 */
function voteClock(): {
  onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void
  seconds: () => number | undefined
} {
  let tail = ''
  let start: number | undefined
  let end: number | undefined
  return {
    onOutput(stream, chunk) {
      if (stream !== 'stdout' || end !== undefined) return
      const text = tail + chunk.toString()
      start ??= /Finding vote: \d+ finding/.test(text) ? Date.now() : undefined
      if (start !== undefined && /Finding vote: MassGen /.test(text))
        end = Date.now()
      tail = text.slice(-200)
    },
    seconds: () =>
      start !== undefined && end !== undefined
        ? (end - start) / 1000
        : undefined
  }
}

/**
 * What one run of the action says about the review; `voteWall` is the vote
 * round's wall time when the log's timing gave it.
 */
export function outcomeOf(
  run: ActionRun,
  wallSeconds: number,
  voteWall?: number
): RunOutcome {
  const status = run.outputs.status ?? ''
  const tokens = footerTokens(run.summary)
  const vote = voteLine(run.stdout)
  const voteSeconds = vote ? (voteWall ?? vote.seconds ?? 0) : 0
  const voteCost = vote ? voteRoundCost(run.outputs['log-dir']) : null
  // The footer and the `cost` output total both rounds: the answers' round
  // is what is left without the vote round's own figures.
  const answers: Measured = {
    cost_usd: less(number(run.outputs.cost), voteCost),
    tokens_in: less(tokens.in, vote?.in ?? null),
    tokens_out: less(tokens.out, vote?.out ?? null),
    seconds: Math.max(0, wallSeconds - voteSeconds)
  }
  if (status !== 'success')
    return {
      ok: false,
      reason: `the action's status was '${status || 'none'}' (exit code ${run.exitCode})`,
      answers
    }
  const findings = parseFindings(run.outputs.findings)
  if (!findings)
    return {
      ok: false,
      reason: 'the run succeeded but gave no findings output (no review)',
      answers
    }
  return {
    ok: true,
    findings,
    answers,
    ...(vote
      ? {
          voteRound: {
            cost_usd: voteCost,
            tokens_in: vote.in,
            tokens_out: vote.out,
            seconds: voteSeconds
          }
        }
      : {}),
    unreadable: unreadableBlocks(run.summary)
  }
}

/** A total less one of its parts; unknown when the total is. */
function less(total: number | null, part: number | null): number | null {
  return total === null ? null : Math.max(0, total - (part ?? 0))
}

/**
 * The run's job summary and outputs, written to `settings.keep` so a failed
 * run's reason can be read after; the values of key inputs never reach disk
 * (the action's log, which a runner would mask, is not kept).
 */
export function keepRun(run: ActionRun, settings: RunSettings): void {
  if (!settings.keep) return
  const secrets = Object.entries(settings.inputs)
    .filter(([name, value]) => /-(api-key|token)$/.test(name) && value)
    .map(([, value]) => value)
  const scrub = (text: string): string =>
    secrets.reduce((t, secret) => t.split(secret).join('***'), text)
  fs.mkdirSync(settings.keep, { recursive: true })
  fs.writeFileSync(path.join(settings.keep, 'summary.md'), scrub(run.summary))
  fs.writeFileSync(
    path.join(settings.keep, 'outputs.json'),
    scrub(JSON.stringify(run.outputs, null, 2)) + '\n'
  )
}

/** Runs the action once on the case with these inputs. */
export async function runCase(
  c: EvalCase,
  settings: RunSettings
): Promise<RunOutcome> {
  const github = await startGitHubServer({ issues: [42] })
  github.state.pulls['42'] = {
    title: c.title,
    body: c.body,
    author: { login: 'eval-author', id: 5550042, type: 'User' },
    base: { ref: 'main', sha: 'a'.repeat(40), repo: 'octo-org/octo-repo' },
    head: { ref: 'eval', sha: FIXTURE_HEAD_SHA, repo: 'octo-org/octo-repo' },
    files: diffFiles(c.diff),
    diff: c.diff
  }
  // Readable to the sandbox's user: local mode runs MassGen as nobody.
  const workspace = openTempDir('massgen-eval-workspace-')
  fs.cpSync(c.filesDir, workspace, { recursive: true })
  const clock = voteClock()
  const started = Date.now()
  let run: ActionRun | undefined
  try {
    run = await runAction({
      eventName: 'pull_request',
      payload: event('pull_request.opened'),
      githubApiUrl: github.url,
      workspace,
      post: false,
      onOutput: clock.onOutput,
      inputs: settings.inputs,
      ...(settings.env ? { env: settings.env } : {}),
      ...(settings.pathExtra ? { pathExtra: settings.pathExtra } : {})
    })
    return outcomeOf(run, (Date.now() - started) / 1000, clock.seconds())
  } finally {
    if (run && settings.keep) keepRun(run, settings)
    await github.close()
    fs.rmSync(workspace, { recursive: true, force: true })
    if (run) fs.rmSync(run.dir, { recursive: true, force: true })
  }
}
