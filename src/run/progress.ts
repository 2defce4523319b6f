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
  /** An update already on its way (the first view): later ones go after it. */
  after?: Promise<void>
  /** Shortest time between two comment updates (phase changes excepted). */
  minIntervalMs: number
  now: () => number
  log: (line: string) => void
  /** Posts the live view; failures are the callee's to log. */
  publish?: (snapshot: ProgressSnapshot) => Promise<void>
}

export class ProgressTracker {
  private lastLine = ''
  private lastPhase = ''
  private lastPublished = 0
  private publishedLine = ''
  private pending: Promise<void> = Promise.resolve()
  private closed = false

  constructor(private readonly options: ProgressTrackerOptions) {
    if (options.after) this.pending = options.after.catch(() => undefined)
  }

  update(snapshot: ProgressSnapshot): void {
    if (this.closed) return
    const line = progressLine(snapshot)
    if (line === this.lastLine) return
    this.lastLine = line
    this.options.log(line)
    const phaseChanged = snapshot.phase !== this.lastPhase
    this.lastPhase = snapshot.phase
    const due =
      this.options.now() - this.lastPublished >= this.options.minIntervalMs
    if (
      this.options.publish &&
      (phaseChanged || due) &&
      line !== this.publishedLine
    ) {
      this.lastPublished = this.options.now()
      this.publishedLine = line
      const publish = this.options.publish
      // Serialised, so an older view never lands after a newer one.
      this.pending = this.pending
        .then(() => publish(snapshot))
        .catch(() => undefined)
    }
  }

  /** Stops publishing and waits for any update in flight (before the final report). */
  async close(): Promise<void> {
    this.closed = true
    await this.pending
  }
}
