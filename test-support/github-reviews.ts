// Pull-request reviews in the loopback GitHub, checked the way GitHub checks
// them: a comment's line must be shown in one of the file's diff hunks on
// the side it names (RIGHT: added or context lines of the new file, LEFT:
// removed or context lines of the old one), a range's start_line must come
// before its line and sit in the same hunk; anything else refuses the WHOLE
// review with 422 and GitHub's error shape (which never says which comment).
// Erasable TypeScript, run directly by Node 24.
import {
  HttpError,
  now,
  page,
  userJson,
  type Handler
} from './github-replies.ts'
import type {
  ServerPull,
  ServerReview,
  ServerReviewComment,
  ServerState
} from './github-state.ts'

const REVIEW_DOCS =
  'https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request'

/** file -> side -> line -> hunk index, read from the pull request's diff. */
export type DiffIndex = Map<
  string,
  { RIGHT: Map<number, number>; LEFT: Map<number, number> }
>

export function indexDiff(diff: string): DiffIndex {
  const files: DiffIndex = new Map()
  let sides:
    { RIGHT: Map<number, number>; LEFT: Map<number, number> } | undefined
  let hunk = 0
  let left = 0
  let right = 0
  let inside = false
  for (const text of diff.split('\n')) {
    if (text.startsWith('diff --git ')) {
      sides = undefined
      inside = false
    } else if (!inside && text.startsWith('+++ ')) {
      const name = text.slice(4)
      sides = { RIGHT: new Map(), LEFT: new Map() }
      if (name !== '/dev/null') files.set(name.replace(/^b\//, ''), sides)
    } else if (!inside && text.startsWith('--- ')) {
      // old name: the new one names the file
    } else {
      const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text)
      if (m) {
        inside = true
        hunk++
        left = Number(m[1])
        right = Number(m[2])
      } else if (inside && sides) {
        if (text.startsWith('+')) sides.RIGHT.set(right++, hunk)
        else if (text.startsWith('-')) sides.LEFT.set(left++, hunk)
        else if (text.startsWith(' ')) {
          sides.RIGHT.set(right++, hunk)
          sides.LEFT.set(left++, hunk)
        } else if (!text.startsWith('\\')) inside = false
      }
    }
  }
  return files
}

function refuse(message: string): never {
  throw new HttpError(422, 'Unprocessable Entity', {
    errors: [message],
    documentation_url: REVIEW_DOCS
  })
}

function checkComment(
  raw: unknown,
  diff: DiffIndex
): Omit<
  ServerReviewComment,
  'id' | 'reviewId' | 'pullNumber' | 'user' | 'commitId' | 'createdAt'
> {
  const c = (raw ?? {}) as Record<string, unknown>
  if (typeof c.path !== 'string' || typeof c.body !== 'string')
    throw new HttpError(422, 'Invalid request.', {
      errors: ['"path" and "body" are required for each comment.'],
      documentation_url: REVIEW_DOCS
    })
  if (c.position !== undefined)
    refuse('position is not supported by this stand-in')
  const side = c.side ?? 'RIGHT'
  if (side !== 'RIGHT' && side !== 'LEFT')
    throw new HttpError(422, 'Invalid request.', {
      errors: [`${JSON.stringify(side)} is not a member of ["LEFT", "RIGHT"].`],
      documentation_url: REVIEW_DOCS
    })
  if (!Number.isInteger(c.line)) refuse('Line could not be resolved')
  const line = c.line as number
  const file = diff.get(c.path)
  if (!file) refuse('Path could not be resolved')
  const hunk = file[side].get(line)
  if (hunk === undefined)
    refuse('Pull request review thread line must be part of the diff')
  let startLine: number | null = null
  let startSide: 'LEFT' | 'RIGHT' | null = null
  if (c.start_line !== undefined && c.start_line !== null) {
    if (!Number.isInteger(c.start_line))
      refuse('Start line could not be resolved')
    startLine = c.start_line as number
    const s = c.start_side ?? side
    if (s !== 'RIGHT' && s !== 'LEFT') refuse('Start side is invalid')
    startSide = s
    if (startLine >= line && startSide === side)
      refuse('Pull request review thread start line must precede the end line.')
    if (file[startSide].get(startLine) !== hunk)
      refuse(
        'Pull request review thread start line must be part of the same hunk as the line.'
      )
  }
  return { path: c.path, line, side, startLine, startSide, body: c.body }
}

function pullOf(s: ServerState, n: string): ServerPull {
  const p = s.pulls[n]
  if (!p) throw new HttpError(404, 'Not Found')
  return p
}

const STATES: Record<string, string> = {
  COMMENT: 'COMMENTED',
  APPROVE: 'APPROVED',
  REQUEST_CHANGES: 'CHANGES_REQUESTED'
}

function reviewJson(r: ServerReview, s: ServerState, base: string) {
  const repo = `${s.owner}/${s.repo}`
  return {
    id: r.id,
    node_id: `PRR_${r.id}`,
    user: userJson(r.user, s),
    body: r.body,
    state: r.state,
    html_url: `${s.serverUrl}/${repo}/pull/${r.pullNumber}#pullrequestreview-${r.id}`,
    pull_request_url: `${base}/repos/${repo}/pulls/${r.pullNumber}`,
    commit_id: r.commitId,
    submitted_at: r.submittedAt
  }
}

/** A pending review is seen only by its author (the token's identity here). */
function visible(s: ServerState, r: ServerReview): boolean {
  return r.state !== 'PENDING' || r.user.login === s.identity.login
}

export const reviewRoutes: [string, Handler][] = [
  [
    'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
    (s, c) => {
      const n = c.params[0] ?? ''
      const p = pullOf(s, n)
      const event = c.body.event
      if (event !== undefined && !(typeof event === 'string' && STATES[event]))
        throw new HttpError(422, 'Invalid request.', {
          errors: [
            `${JSON.stringify(event)} is not a member of ["APPROVE", "REQUEST_CHANGES", "COMMENT"].`
          ],
          documentation_url: REVIEW_DOCS
        })
      const commitId = c.body.commit_id ?? p.head.sha
      if (commitId !== p.head.sha && commitId !== p.base.sha)
        refuse(
          `No commit found for SHA: ${typeof commitId === 'string' ? commitId : JSON.stringify(commitId)}`
        )
      const body = typeof c.body.body === 'string' ? c.body.body : ''
      const raw = c.body.comments ?? []
      if (!Array.isArray(raw)) throw new HttpError(422, 'Invalid request.')
      const diff = indexDiff(p.diff)
      const checked = raw.map((x) => checkComment(x, diff))
      if (event && event !== 'APPROVE' && !body && checked.length === 0)
        refuse("Review body can't be blank")
      if (
        !event &&
        s.reviews.some(
          (r) =>
            r.pullNumber === Number(n) &&
            r.state === 'PENDING' &&
            r.user.login === s.identity.login
        )
      )
        refuse('User can only have one pending review per pull request')
      const t = now()
      const review: ServerReview = {
        id: s.nextId++,
        pullNumber: Number(n),
        user: s.identity,
        body,
        state: event ? (STATES[event] as string) : 'PENDING',
        event: event,
        commitId: String(commitId),
        submittedAt: event ? t : null
      }
      s.reviews.push(review)
      for (const x of checked)
        s.reviewComments.push({
          ...x,
          id: s.nextId++,
          reviewId: review.id,
          pullNumber: Number(n),
          user: s.identity,
          commitId: String(commitId),
          createdAt: t
        })
      return { status: 200, data: reviewJson(review, s, c.base) }
    }
  ],
  [
    'DELETE /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}',
    (s, c) => {
      const id = Number(c.params[1])
      const review = s.reviews.find(
        (r) => r.id === id && r.pullNumber === Number(c.params[0])
      )
      if (!review || !visible(s, review)) throw new HttpError(404, 'Not Found')
      if (review.state !== 'PENDING')
        refuse('Can not delete a non-pending pull request review')
      s.reviews = s.reviews.filter((r) => r !== review)
      s.reviewComments = s.reviewComments.filter((x) => x.reviewId !== id)
      return { status: 200, data: reviewJson(review, s, c.base) }
    }
  ],
  [
    'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
    (s, c) => {
      const n = Number(c.params[0])
      pullOf(s, String(n))
      const all = s.reviews.filter((r) => r.pullNumber === n && visible(s, r))
      const { slice, link } = page(all, c)
      const headers: Record<string, string> = link ? { link } : {}
      return {
        status: 200,
        data: slice.map((r) => reviewJson(r, s, c.base)),
        headers
      }
    }
  ]
]
