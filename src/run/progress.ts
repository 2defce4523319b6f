// Live progress: turns status.json snapshots into log lines and throttled
// updates of the sticky comment.
import type { MassgenStatus } from './status-file.js'
import type { AgentPlan } from '../core/types.js'

/** What the live progress comment shows: status.json, cut to what is posted. */
export interface ProgressSnapshot {
  phase: string
  completionPercentage: number
  elapsedSeconds: number
  agents: Array<{
    id: string
    backend?: string
    model?: string
    status: string
    answerCount: number
    votedFor?: string
  }>
  votes: Record<string, number>
}

export function toSnapshot(
  status: MassgenStatus,
  agents: AgentPlan[],
  elapsedSeconds: number
): ProgressSnapshot {
  return {
    phase: status.coordination?.phase ?? 'starting',
    completionPercentage: status.coordination?.completion_percentage ?? 0,
    elapsedSeconds: status.meta?.elapsed_seconds ?? elapsedSeconds,
    agents: agents.map((agent) => {
      const s = status.agents?.[agent.id]
      return {
        id: agent.id,
        backend: agent.backend,
        model: agent.model,
        status: s?.status ?? 'waiting',
        answerCount: s?.answer_count ?? 0,
        ...(s?.vote_cast?.voted_for_agent
          ? { votedFor: s.vote_cast.voted_for_agent }
          : {})
      }
    }),
    votes: status.results?.votes ?? {}
  }
}

/** One line that changes exactly when something worth logging changes. */
export function progressLine(snapshot: ProgressSnapshot): string {
  const agents = snapshot.agents
    .map(
      (a) =>
        `${a.id}=${a.status}` +
        (a.answerCount ? `/${a.answerCount}ans` : '') +
        (a.votedFor ? `->${a.votedFor}` : '')
    )
    .join(' ')
  const votes = Object.entries(snapshot.votes)
    .map(([label, n]) => `${label}:${n}`)
    .join(',')
  return (
    `[progress] phase=${snapshot.phase} ${Math.round(snapshot.completionPercentage)}% ` +
    `${agents}${votes ? ` votes=${votes}` : ''}`
  )
}

interface ProgressTrackerOptions {
  /** Shortest time between two offered views (phase changes excepted). */
  minIntervalMs: number
  now: () => number
  log: (line: string) => void
}

/**
 * Logs each change of the run's progress and offers the views worth
 * posting: a phase change at once, any other change at most every
 * minIntervalMs. The tracker posts nothing itself: whoever follows
 * `views()` posts at its own pace and gets the newest view due, an older
 * one it had not taken yet being dropped, so a slow poster never falls
 * behind the run.
 */
export class ProgressTracker {
  private lastLine = ''
  private lastPhase = ''
  private lastOffered = 0
  private offeredLine = ''
  private waiting: ProgressSnapshot | undefined
  private wake: (() => void) | undefined
  private closed = false

  constructor(private readonly options: ProgressTrackerOptions) {}

  update(snapshot: ProgressSnapshot): void {
    if (this.closed) return
    const line = progressLine(snapshot)
    if (line === this.lastLine) return
    this.lastLine = line
    this.options.log(line)
    const phaseChanged = snapshot.phase !== this.lastPhase
    this.lastPhase = snapshot.phase
    const due =
      this.options.now() - this.lastOffered >= this.options.minIntervalMs
    if (!(phaseChanged || due) || line === this.offeredLine) return
    this.lastOffered = this.options.now()
    this.offeredLine = line
    this.waiting = snapshot
    this.wakeFollower()
  }

  /** The views to post, newest first due; ends once the tracker is closed. */
  async *views(): AsyncGenerator<ProgressSnapshot> {
    for (;;) {
      const next = this.waiting
      this.waiting = undefined
      if (next) yield next
      else if (this.closed) return
      else await new Promise<void>((resolve) => (this.wake = resolve))
    }
  }

  /** No more views: one not taken yet is dropped (the final report follows). */
  close(): void {
    this.closed = true
    this.waiting = undefined
    this.wakeFollower()
  }

  private wakeFollower(): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }
}
