// Reads the conversation a command continues (conversation.ts builds the
// text). Before the run posts anything: the first progress view replaces
// the report a follow-up needs. A failure costs only the context, never
// the run: the question still stands on its own.
import type { GitHubApi } from '../github/api.js'
import { followUpContext, reviewThreadContext } from './conversation.js'
import { type ConversationRequest } from '../core/conversation.js'
import { errorText } from '../core/text.js'
import type { StageLog } from '../core/log.js'

export async function readConversation(
  github: GitHubApi | undefined,
  request: ConversationRequest,
  tag: string,
  log: StageLog
): Promise<string> {
  try {
    if (request.kind === 'review-thread') {
      const earlier = github
        ? await github.readReviewThread(
            request.pullNumber,
            request.threadId,
            request.commentId
          )
        : []
      log.info(
        `Review thread context: ${earlier.length} earlier comment(s) in the thread`
      )
      return reviewThreadContext(request, earlier)
    }
    if (!github) return ''
    const followUp = await github.readFollowUp(
      request.issueNumber,
      tag,
      request.commentId
    )
    if (followUp.previous)
      log.info(
        `Follow-up: the earlier report and ${followUp.since.length} comment(s) go to the agents`
      )
    return followUpContext(followUp, request.commentId)
  } catch (error) {
    log.warning(
      `Could not read the conversation for context (${errorText(error)}); ` +
        'the agents get the question alone.'
    )
    return request.kind === 'review-thread'
      ? reviewThreadContext(request, [])
      : ''
  }
}
