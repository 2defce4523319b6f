// The threads of earlier findings this run found fixed (earlier.ts): a
// one-line reply saying why, then resolved (GraphQL resolveReviewThread).
// Only the token's own threads reach here, and only those classifyEarlier
// marked 'resolved' (no person wrote in them, unless `resolve-threads` is
// 'answered-too'; never one raised again).
import type { StageLog } from '../core/log.js'
import type { GitHubApi } from '../github/api.js'
import { redactSecrets } from '../safety/redact.js'
import { errorText } from '../core/text.js'
import { resolvedReply } from './earlier.js'
import type { EarlierOutcome } from '../core/review.js'

type ThreadResolver = Pick<
  GitHubApi,
  'replyToReviewThread' | 'resolveReviewThread'
>

/** Resolves each thread marked 'resolved'; a refusal leaves it open, said in the log and the report. */
export async function resolveFixedThreads(
  github: ThreadResolver,
  pull: { number: number; headSha: string },
  outcomes: EarlierOutcome[],
  secrets: readonly string[],
  log: StageLog
): Promise<EarlierOutcome[]> {
  const out: EarlierOutcome[] = []
  for (const o of outcomes) {
    out.push(o.thread === 'resolved' ? await resolveOne(o) : o)
  }
  return out

  async function resolveOne(o: EarlierOutcome): Promise<EarlierOutcome> {
    const f = o.finding
    try {
      await github.replyToReviewThread(
        pull.number,
        f.commentId,
        resolvedReply(pull.headSha, f.moved)
      )
      await github.resolveReviewThread(f.threadId)
      log.info(`Resolved the thread of a fixed finding: ${f.url}`)
      return o
    } catch (error) {
      log.warning(
        `Could not resolve the thread of a fixed finding (${f.url}): ${redactSecrets(errorText(error), secrets)}`
      )
      return { ...o, thread: 'failed' }
    }
  }
}
