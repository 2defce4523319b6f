// What MassGen left behind, judged (results.ts): its log folder found and
// read, its config errors picked out of stderr.
import { saveStepState } from '../core/step-state.js'
import type { RunResult, Settings } from '../core/types.js'
import type { RunPlan } from '../plan/plan.js'
import type { MassgenRunOutcome } from '../run/run-massgen.js'
import { GUARD_ACTIVE_LINE } from '../safety/massgen-guard.js'
import { discoverLogDir, readRunFiles } from './log-files.js'
import { judgeRun } from './results.js'

/** What MassGen left behind, judged (results/results.ts). */
export function judgeOutcome(
  settings: Settings,
  question: string,
  plan: Pick<RunPlan, 'agents' | 'config'>,
  outcome: MassgenRunOutcome,
  seen: { logBase: string; costAtStop: number | undefined }
): RunResult {
  const { agents } = plan
  const logDir = outcome.hints.logDir ?? discoverLogDir(seen.logBase)
  const files = logDir
    ? readRunFiles(
        logDir,
        agents.map((a) => a.id),
        outcome.hints
      )
    : {
        statusUnreadable: false,
        answers: {},
        votes: {},
        answersTruncated: false
      }
  if (logDir) saveStepState('logDir', logDir)
  return judgeRun({
    question,
    agents,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    cancelled: outcome.cancelled,
    ...(outcome.stoppedByStatus && settings.maxCost !== undefined
      ? { costLimit: { maxCost: settings.maxCost, seenCost: seen.costAtStop } }
      : {}),
    maxDurationSeconds: settings.maxDurationSeconds,
    ...(withoutPresentation(plan.config) ? { withoutPresentation: true } : {}),
    logDir,
    files,
    configErrors: configErrorLines(outcome.stderrTail),
    wallSeconds: outcome.wallSeconds,
    ...(outcome.endedAtMs !== undefined ? { endedAtMs: outcome.endedAtMs } : {})
  })
}

/** The config MassGen ran told it to skip its final presentation (plan/config.ts IDLE_PRESENTATION, or the user's). */
function withoutPresentation(config: Record<string, unknown>): boolean {
  const orchestrator = config.orchestrator as
    Record<string, unknown> | undefined
  return orchestrator?.skip_final_presentation === true
}

/**
 * MassGen's validation messages: `❌ [location] message` lines with their
 * `💡 Suggestion` lines on stderr; the rest of stderr is warnings noise.
 */
function configErrorLines(stderr: string[]): string[] {
  const marked = stderr
    .filter((line) => /❌|💡/.test(line))
    .map((line) => line.trim())
  if (marked.length > 0) return marked.slice(0, 60)
  return stderr
    .filter(
      (line) =>
        line.trim() &&
        line !== GUARD_ACTIVE_LINE &&
        !/Warning|^\s+(from|with|import) |^It will be compatible/.test(line)
    )
    .slice(-20)
}
