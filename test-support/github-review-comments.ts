// Pull request review comments on the loopback GitHub: the list of a pull
// request's review comments and replies in a thread, shaped as
// api.github.com answers them (GET /pulls/{n}/comments, POST
// /pulls/{n}/comments/{id}/replies).
import {
  HttpError,
  now,
  page,
  REACTIONS,
  ROCKET_EYES,
  userJson,
  type Handler
} from './github-replies.ts'
import {
  BODY_LIMIT,
  DOCS,
  type ServerReviewComment,
  type ServerState,
  type ServerUser
} from './github-state.ts'

/** Put a review comment straight into the state, as if posted earlier. */
export function addReviewComment(
  state: ServerState,
  pullNumber: number,
  fields: Partial<ServerReviewComment> & { body: string; user: ServerUser }
): ServerReviewComment {
  const t = fields.createdAt ?? '2025-11-28T10:00:00Z'
  const root = state.reviewComments.find((c) => c.id === fields.inReplyToId)
  const comment: ServerReviewComment = {
    id: state.nextId++,
    reviewId: null,
    pullNumber,
    startSide: null,
    path: root?.path ?? 'src/parser.ts',
    line: root?.line ?? 3,
    startLine: root?.startLine ?? null,
    side: root?.side ?? 'RIGHT',
    diffHunk:
      root?.diffHunk ?? '@@ -1,2 +1,3 @@\n const a = 1\n-const b = 2\n+fast\n',
    commitId: state.pulls[String(pullNumber)]?.head.sha ?? 'b'.repeat(40),
    createdAt: t,
    updatedAt: t,
    ...fields
  }
  state.reviewComments.push(comment)
  return comment
}

export function reviewCommentJson(
  c: ServerReviewComment,
  s: ServerState,
  base: string
) {
  const repo = `${s.owner}/${s.repo}`
  const self = `${base}/repos/${repo}/pulls/comments/${c.id}`
  const html = `${s.serverUrl}/${repo}/pull/${c.pullNumber}#discussion_r${c.id}`
  const pull = `${base}/repos/${repo}/pulls/${c.pullNumber}`
  return {
    url: self,
    pull_request_review_id: c.reviewId ?? 7_000_000 + c.id,
    id: c.id,
    node_id: `PRRC_${Buffer.from(String(c.id)).toString('base64url')}`,
    diff_hunk: c.diffHunk ?? '',
    path: c.path,
    position: c.line,
    original_position: c.originalLine ?? c.line,
    commit_id: c.commitId,
    original_commit_id: c.commitId,
    // GitHub leaves the field out on a thread's first comment.
    ...(c.inReplyToId === undefined ? {} : { in_reply_to_id: c.inReplyToId }),
    user: userJson(c.user, s),
    body: c.body,
    created_at: c.createdAt,
    updated_at: c.updatedAt ?? c.createdAt,
    html_url: html,
    pull_request_url: pull,
    author_association: c.user.type === 'Bot' ? 'NONE' : 'MEMBER',
    _links: {
      self: { href: self },
      html: { href: html },
      pull_request: { href: pull }
    },
    start_line: c.startLine,
    original_start_line: c.startLine,
    start_side: c.startSide ?? (c.startLine === null ? null : c.side),
    line: c.line,
    original_line: c.originalLine ?? c.line,
    side: c.side,
    subject_type: 'line',
    reactions: {
      url: `${self}/reactions`,
      total_count: 0,
      ...Object.fromEntries([...REACTIONS, ...ROCKET_EYES].map((k) => [k, 0]))
    }
  }
}

function pullOf(s: ServerState, n: string): number {
  if (!s.pulls[n]) throw new HttpError(404, 'Not Found')
  return Number(n)
}

export const reviewCommentRoutes: [string, Handler][] = [
  [
    'GET /repos/{owner}/{repo}/pulls/{pull_number}/comments',
    (s, c) => {
      const n = pullOf(s, c.params[0] ?? '')
      // A pending review's comments are not listed until it is submitted.
      const pending = new Set(
        s.reviews.filter((r) => r.state === 'PENDING').map((r) => r.id)
      )
      const all = s.reviewComments
        .filter((x) => x.pullNumber === n)
        .filter((x) => x.reviewId === null || !pending.has(x.reviewId))
        .sort((a, b) => a.id - b.id)
      const { slice, link } = page(all, c)
      const data = slice.map((x) => reviewCommentJson(x, s, c.base))
      const headers: Record<string, string> = link ? { link } : {}
      return { status: 200, data, headers }
    }
  ],
  [
    'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies',
    (s, c) => {
      const n = pullOf(s, c.params[0] ?? '')
      const id = Number(c.params[1])
      const root = s.reviewComments.find(
        (x) => x.id === id && x.pullNumber === n
      )
      if (!root) throw new HttpError(404, 'Not Found')
      const body = c.body.body
      if (typeof body !== 'string' || body.length === 0)
        throw new HttpError(422, 'Invalid request.', {
          errors: [
            {
              resource: 'PullRequestReviewComment',
              field: 'body',
              code: 'missing_field'
            }
          ]
        })
      if ([...body].length > BODY_LIMIT)
        throw new HttpError(422, 'Validation Failed', {
          errors: [
            {
              resource: 'PullRequestReviewComment',
              code: 'custom',
              field: 'body',
              message: `body is too long (maximum is ${BODY_LIMIT} characters)`
            }
          ],
          documentation_url: `${DOCS}/pulls/comments#create-a-reply-for-a-review-comment`
        })
      // The docs: the id must be a thread's first comment, not a reply.
      if (root.inReplyToId !== undefined)
        throw new HttpError(422, 'Validation Failed', {
          errors: [
            {
              resource: 'PullRequestReviewComment',
              code: 'custom',
              field: 'in_reply_to',
              message: 'in_reply_to must be a top-level review comment'
            }
          ]
        })
      const t = now()
      const reply: ServerReviewComment = {
        ...root,
        id: s.nextId++,
        body,
        user: s.identity,
        inReplyToId: root.id,
        createdAt: t,
        updatedAt: t
      }
      s.reviewComments.push(reply)
      return { status: 201, data: reviewCommentJson(reply, s, c.base) }
    }
  ]
]
