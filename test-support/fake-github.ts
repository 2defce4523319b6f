// An in-memory GitHub door: the action's GitHubApi (src/github/api.ts) over
// the loopback GitHub's world (github-state.ts), for unit tests that need a
// GitHub without HTTP. Typed as the real interface in one object literal, so
// a method added, removed or changed there fails to compile here. What the
// loopback server proves about GitHub's wire contract (routes, paging, 4xx
// answers) stays with it; this fake keeps only the meaning of each call.
import {
  ROLES,
  type GitHubApi,
  type Permission,
  type ReactionContent
} from '../src/github/api.ts'
import type { ThreadComment } from '../src/core/conversation.ts'
import { startsWithMarker, stickyMarker } from '../src/github/sticky-marker.ts'
import { annotationKey } from '../src/github/checks.ts'
import {
  addComment,
  defaultState,
  type ServerCheckRun,
  type ServerState,
  type ServerTreeEntry
} from './github-state.ts'

/** One call the code under test made, in order. */
export interface GitHubCall {
  method: keyof GitHubApi
  args: unknown[]
}

export interface FakeGitHub {
  api: GitHubApi
  /** The world the calls read and change (the loopback server's shape). */
  state: ServerState
  calls: GitHubCall[]
  /** The methods called, in order. */
  called(): Array<keyof GitHubApi>
}

/** A comment as the conversation reads it (src/core/conversation.ts). */
function asThreadComment(c: {
  id: number
  user: { login: string }
  body: string
  createdAt: string
}): ThreadComment {
  return {
    id: c.id,
    author: c.user.login,
    body: c.body,
    createdAt: c.createdAt
  }
}

/** A path with files below it in a commit's tree. */
const FOLDER = Symbol('folder')

/** GitHub's answer for an entry that is not there: a 404 as Octokit throws it. */
function notFound(what: string): Error {
  return Object.assign(new Error(`Not Found: ${what}`), { status: 404 })
}

export function fakeGitHub(state: ServerState = defaultState()): FakeGitHub {
  const calls: GitHubCall[] = []
  const record = (method: keyof GitHubApi, args: unknown[]) => {
    calls.push({ method, args })
  }
  const pull = (number: number) => {
    const found = state.pulls[String(number)]
    if (!found) throw notFound(`pull ${number}`)
    return found
  }
  const entryAt = (
    file: string,
    ref: string
  ): ServerTreeEntry | typeof FOLDER | undefined => {
    const tree = state.files?.[ref] ?? {}
    if (file in tree) return tree[file]
    return Object.keys(tree).some((p) => p.startsWith(`${file}/`))
      ? FOLDER
      : undefined
  }
  const own = (issueNumber: number, tag: string) =>
    state.comments.find(
      (c) =>
        c.issueNumber === issueNumber &&
        c.user.login === state.identity.login &&
        startsWithMarker(c.body, tag)
    )
  const url = (kind: string, id: number) =>
    `${state.serverUrl}/${state.owner}/${state.repo}/${kind}#${id}`

  const api: GitHubApi = {
    owner: state.owner,
    repo: state.repo,
    async findStickyComment(issueNumber, tag) {
      record('findStickyComment', [issueNumber, tag])
      const c = own(issueNumber, tag)
      return c && { id: c.id, url: url('issues', c.id), body: c.body }
    },
    async upsertStickyComment(issueNumber, tag, body) {
      record('upsertStickyComment', [issueNumber, tag, body])
      const text = `${stickyMarker(tag)}\n${body}`
      const found = own(issueNumber, tag)
      if (found) {
        found.body = text
        return { id: found.id, url: url('issues', found.id) }
      }
      const made = addComment(state, issueNumber, text)
      return { id: made.id, url: url('issues', made.id) }
    },
    async addReaction(commentId, content: ReactionContent) {
      record('addReaction', [commentId, content])
      const id = state.nextId++
      state.reactions.push({ id, commentId, content, user: state.identity })
      return id
    },
    async removeReaction(commentId, reactionId) {
      record('removeReaction', [commentId, reactionId])
      state.reactions = state.reactions.filter(
        (r) => !(r.commentId === commentId && r.id === reactionId)
      )
    },
    async getPermission(username) {
      record('getPermission', [username])
      const role = state.permissions[username]
      if (role === undefined) return 'none'
      if (typeof role === 'string') return role
      // A custom role: its base permission decides, as in api.ts.
      return ROLES.includes(role.role_name as Permission)
        ? (role.role_name as Permission)
        : role.permission
    },
    async getPullRequestContext(number, maxDiffBytes) {
      record('getPullRequestContext', [number, maxDiffBytes])
      const p = pull(number)
      const diff = Buffer.from(p.diff).subarray(0, maxDiffBytes).toString()
      return {
        number,
        title: p.title,
        body: p.body ?? '',
        baseRef: p.base.ref,
        baseSha: p.base.sha,
        headRef: p.head.ref,
        headSha: p.head.sha,
        headRepo: p.head.repo ?? undefined,
        files: p.files,
        diff,
        diffTruncated: Boolean(p.diffTooLarge) || diff.length < p.diff.length
      }
    },
    async getPullHead(number) {
      record('getPullHead', [number])
      const p = pull(number)
      return {
        sha: p.head.sha,
        committedAt: p.headCommittedAt ?? '2025-11-28T09:00:00Z',
        forcePushedAt: (p.timeline ?? [])
          .filter((t) => t.event === 'head_ref_force_pushed')
          .map((t) => t.created_at),
        mergeSha: p.mergeCommitSha
      }
    },
    async getPullTip(number) {
      record('getPullTip', [number])
      const p = pull(number)
      return { sha: p.head.sha, mergeSha: p.mergeCommitSha }
    },
    async getFileAtCommit(file, ref, maxBytes) {
      record('getFileAtCommit', [file, ref, maxBytes])
      const entry = entryAt(file, ref)
      if (entry === undefined) return { kind: 'absent' }
      if (entry === FOLDER) return { kind: 'not-a-file', type: 'dir' }
      if (typeof entry !== 'string')
        return 'symlink' in entry
          ? { kind: 'link' }
          : { kind: 'not-a-file', type: 'submodule' }
      const bytes = Buffer.byteLength(entry)
      return bytes > maxBytes
        ? { kind: 'too-large', bytes }
        : { kind: 'file', text: entry, bytes }
    },
    async getPullBase(number) {
      record('getPullBase', [number])
      const { sha, ref } = pull(number).base
      return { sha, ref }
    },
    async getDefaultBranch() {
      record('getDefaultBranch', [])
      return state.defaultBranch ?? 'main'
    },
    async getBranchHead(branch) {
      record('getBranchHead', [branch])
      const sha = state.branches?.[branch]
      if (!sha) throw notFound(`branch ${branch}`)
      return sha
    },
    async readFollowUp(issueNumber, tag, beforeId) {
      record('readFollowUp', [issueNumber, tag, beforeId])
      const previous = own(issueNumber, tag)
      if (!previous) return { previous: undefined, since: [] }
      return {
        previous: { body: previous.body, updatedAt: previous.updatedAt },
        since: state.comments
          .filter(
            (c) =>
              c.issueNumber === issueNumber &&
              c.id < beforeId &&
              c.id !== previous.id
          )
          .map(asThreadComment)
      }
    },
    async readReviewThread(pullNumber, threadId, beforeId) {
      record('readReviewThread', [pullNumber, threadId, beforeId])
      return state.reviewComments
        .filter(
          (c) =>
            c.pullNumber === pullNumber &&
            (c.id === threadId || c.inReplyToId === threadId) &&
            c.id < beforeId
        )
        .map(asThreadComment)
    },
    async replyToReviewThread(pullNumber, threadId, body) {
      record('replyToReviewThread', [pullNumber, threadId, body])
      const first = state.reviewComments.find((c) => c.id === threadId)
      if (!first) throw notFound(`review comment ${threadId}`)
      const id = state.nextId++
      state.reviewComments.push({
        ...first,
        id,
        reviewId: null,
        user: state.identity,
        body,
        inReplyToId: threadId,
        createdAt: '2025-11-28T10:00:00Z'
      })
      return { id, url: url('pull', id) }
    },
    async listReviewTexts(pullNumber) {
      record('listReviewTexts', [pullNumber])
      const ours = (login: string) => login === state.identity.login
      return [
        ...state.reviewComments.filter((c) => c.pullNumber === pullNumber),
        ...state.reviews.filter((r) => r.pullNumber === pullNumber)
      ].map((t) => ({ id: t.id, body: t.body, ours: ours(t.user.login) }))
    },
    async createReview(pullNumber, draft) {
      record('createReview', [pullNumber, draft])
      const id = state.nextId++
      state.reviews.push({
        id,
        pullNumber,
        user: state.identity,
        body: draft.body,
        state: draft.event === 'COMMENT' ? 'COMMENTED' : 'PENDING',
        event: draft.event,
        commitId: draft.commitId,
        submittedAt: draft.event ? '2025-11-28T10:00:00Z' : null
      })
      for (const c of draft.comments)
        state.reviewComments.push({
          id: state.nextId++,
          reviewId: id,
          pullNumber,
          user: state.identity,
          path: c.path,
          line: c.line,
          side: c.side,
          startLine: c.start_line ?? null,
          startSide: c.start_side ?? null,
          body: c.body,
          commitId: draft.commitId,
          createdAt: '2025-11-28T10:00:00Z'
        })
      return { id, url: url('pull', id) }
    },
    async deletePendingReview(pullNumber, reviewId) {
      record('deletePendingReview', [pullNumber, reviewId])
      state.reviews = state.reviews.filter(
        (r) => !(r.id === reviewId && r.state === 'PENDING')
      )
      state.reviewComments = state.reviewComments.filter(
        (c) => c.reviewId !== reviewId
      )
    },

    async findCheckRun(headSha, name, externalId) {
      record('findCheckRun', [headSha, name, externalId])
      const found = state.checkRuns.find(
        (r) =>
          r.headSha === headSha &&
          r.name === name &&
          r.externalId === externalId
      )
      return found ? { id: found.id, url: url('runs', found.id) } : undefined
    },

    async createCheckRun(headSha, name, externalId, write) {
      record('createCheckRun', [headSha, name, externalId, write])
      const run: ServerCheckRun = {
        id: state.checkRuns.length + 1,
        name,
        headSha,
        externalId,
        status: write.status,
        conclusion: write.conclusion ?? null,
        detailsUrl: write.detailsUrl ?? null,
        startedAt: new Date(0).toISOString(),
        completedAt: write.completedAt ?? null,
        output: {
          title: write.output.title,
          summary: write.output.summary,
          text: null
        },
        annotations: [...(write.output.annotations ?? [])],
        appId: 1
      }
      state.checkRuns.push(run)
      return { id: run.id, url: url('runs', run.id) }
    },

    async updateCheckRun(id, write) {
      record('updateCheckRun', [id, write])
      const run = state.checkRuns.find((r) => r.id === id)
      if (!run) throw new Error(`no check run ${id}`)
      run.status = write.status
      run.conclusion = write.conclusion ?? run.conclusion
      run.completedAt = write.completedAt ?? run.completedAt
      run.output = {
        title: write.output.title,
        summary: write.output.summary,
        text: null
      }
      // GitHub appends annotations; it never removes them.
      run.annotations.push(...(write.output.annotations ?? []))
      return { id, url: url('runs', id) }
    },

    async listReviewThreads(pullNumber) {
      record('listReviewThreads', [pullNumber])
      const inPull = state.reviewComments.filter(
        (c) => c.pullNumber === pullNumber
      )
      return inPull
        .filter((c) => c.inReplyToId === undefined)
        .map((root) => {
          const writers = inPull
            .filter((c) => c.id === root.id || c.inReplyToId === root.id)
            .map((c) => c.user.login)
          return {
            id: `T_${root.id}`,
            firstCommentId: root.id,
            url: url(`pull/${pullNumber}`, root.id),
            path: root.path,
            line: root.line,
            originalLine: root.originalLine ?? root.line,
            isResolved: root.resolvedBy !== undefined,
            isOutdated: root.line === null,
            body: root.body,
            ours: root.user.login === state.identity.login,
            answered: writers.some((w) => w !== state.identity.login),
            resolvedBy:
              root.resolvedBy === undefined || root.resolvedBy.endsWith('[bot]')
                ? null
                : root.resolvedBy,
            resolvedByUs: root.resolvedBy === state.identity.login
          }
        })
    },

    async resolveReviewThread(threadId) {
      record('resolveReviewThread', [threadId])
      const root = state.reviewComments.find((c) => `T_${c.id}` === threadId)
      if (!root) throw new Error(`no review thread ${threadId}`)
      root.resolvedBy = state.identity.login
    },

    async compareCommits(base, head) {
      record('compareCommits', [base, head])
      const graph = state.commits ?? {}
      if (!graph[base] || !graph[head])
        return { status: 'unknown', why: 'no such commit' }
      if (base === head) return { status: 'identical' }
      const ancestors = (from: string): Set<string> => {
        const seen = new Set<string>()
        const todo = [from]
        while (todo.length > 0) {
          const sha = todo.pop() as string
          if (seen.has(sha)) continue
          seen.add(sha)
          todo.push(...(graph[sha]?.parents ?? []))
        }
        return seen
      }
      const ofHead = ancestors(head)
      const ofBase = ancestors(base)
      if (ofHead.has(base))
        return {
          status: 'ahead',
          diff: state.compareDiffs?.[`${base}...${head}`] ?? '',
          aheadBy: [...ofHead].filter((sha) => !ofBase.has(sha)).length
        }
      return { status: ofBase.has(head) ? 'behind' : 'diverged' }
    },

    async getRunAttemptStart(runId, attempt) {
      record('getRunAttemptStart', [runId, attempt])
      const started = state.runAttempts?.[`${runId}/${attempt}`]
      if (!started) throw new Error(`no attempt ${attempt} of run ${runId}`)
      return new Date(started)
    },

    async checkRunAnnotationKeys(id) {
      record('checkRunAnnotationKeys', [id])
      const run = state.checkRuns.find((r) => r.id === id)
      return new Set((run?.annotations ?? []).map((a) => annotationKey(a)))
    }
  }
  return { api, state, calls, called: () => calls.map((c) => c.method) }
}
