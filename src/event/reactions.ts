// Reactions on the comment that asked for the run: 👀 while it runs, then
// one for the outcome. A failure here is logged, never fatal.
import * as core from '@actions/core'
import type { GitHubApi, ReactionContent } from '../github/api.js'

export function reactionsFor(
  github: GitHubApi | undefined,
  commentId: number | undefined
) {
  let eyes: number | undefined
  const safely = async (what: () => Promise<void>) => {
    try {
      await what()
    } catch (error) {
      core.warning(
        `Could not update the reaction on the triggering comment: ${String(error)}`
      )
    }
  }
  const final: Record<string, ReactionContent> = {
    success: 'rocket',
    skipped: 'confused'
  }
  return {
    start: () =>
      safely(async () => {
        if (github && commentId)
          eyes = await github.addReaction(commentId, 'eyes')
      }),
    finish: (outcome: string) =>
      safely(async () => {
        if (!github || !commentId) return
        if (eyes) await github.removeReaction(commentId, eyes)
        await github.addReaction(commentId, final[outcome] ?? '-1')
      })
  }
}
