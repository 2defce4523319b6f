// The run's live view in the sticky comment: the first view as soon as the
// agents are known, then each progress snapshot the tracker publishes. The
// destination stays here: the stages before the report get these two posts.
import type { AgentPlan } from '../core/types.js'
import { toSnapshot, type ProgressSnapshot } from '../run/progress.js'
import { renderProgress } from './render.js'
import { postComment, reportContext, type Destination } from './report.js'

export interface LiveView {
  /** The first view: the agents planned, nothing run yet. */
  readonly announce: (agents: AgentPlan[]) => Promise<void>
  /** A later view: where MassGen's status file says the run is. */
  readonly show: (snapshot: ProgressSnapshot) => Promise<void>
}

export function liveView(dest: Destination): LiveView {
  const show = async (snapshot: ProgressSnapshot) =>
    void (await postComment(
      dest,
      renderProgress(snapshot, reportContext(dest, 'comment'))
    ))
  return {
    announce: (agents) => show(toSnapshot({}, agents, 0)),
    show
  }
}
