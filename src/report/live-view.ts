// The run's live view in the sticky comment: the first view as soon as the
// agents are known, then each view the progress tracker offers. The
// destination stays here: the stages before the report hand over views, not
// a way to post them.
import type { AgentPlan } from '../core/types.js'
import { toSnapshot, type ProgressSnapshot } from '../run/progress.js'
import { renderProgress } from './render.js'
import { postComment, reportContext, type Destination } from './report.js'

interface LiveView {
  /** The first view: the agents planned, nothing run yet. */
  readonly announce: (agents: AgentPlan[]) => Promise<void>
  /**
   * Posts the views one at a time once `after` (the first view) is out, so
   * an older view never lands after a newer one; resolves when the views end.
   */
  readonly follow: (
    views: AsyncIterable<ProgressSnapshot>,
    after: Promise<void>
  ) => Promise<void>
}

export function liveView(dest: Destination): LiveView {
  const show = async (snapshot: ProgressSnapshot) =>
    void (await postComment(
      dest,
      renderProgress(snapshot, reportContext(dest, 'comment')),
      // The final report says a refusal once; a view's is only logged.
      'quiet'
    ))
  return {
    announce: (agents) => show(toSnapshot({}, agents, 0)),
    follow: async (views, after) => {
      await after.catch(() => undefined)
      // postComment logs its own failures; a failed view leaves the next one.
      for await (const view of views) await show(view).catch(() => undefined)
    }
  }
}
