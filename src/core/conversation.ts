// What a command's conversation is, as values: what to read before the run
// and what GitHub returned for it.

/** What to read before the run, decided from the event alone. */
export type ConversationRequest =
  | {
      kind: 'follow-up'
      issueNumber: number
      /** The command's comment: only comments before it are read. */
      commentId: number
    }
  | {
      kind: 'review-thread'
      pullNumber: number
      /** The thread's first comment. */
      threadId: number
      commentId: number
      path: string
      line: number | undefined
      startLine: number | undefined
      side: string | undefined
      diffHunk: string
    }

export interface ThreadComment {
  id: number
  author: string
  body: string
  createdAt: string
}

/** The action's own report on an issue, and the comments written after it. */
export interface FollowUp {
  previous: { body: string; updatedAt: string } | undefined
  since: ThreadComment[]
}
