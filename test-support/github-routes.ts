// The REST routes the action calls, each answering from the server's state
// as api.github.com would, errors included.
import { createHash } from 'node:crypto'
import * as path from 'node:path'
import {
  commentJson,
  HttpError,
  now,
  page,
  REACTIONS,
  ROCKET_EYES,
  userJson,
  type Handler
} from './github-replies.ts'
import { reviewCommentRoutes } from './github-review-comments.ts'
import {
  BODY_LIMIT,
  DOCS,
  type ServerComment,
  type ServerPull,
  type ServerState,
  type ServerUser,
  type ServerTreeEntry
} from './github-state.ts'
import { reviewRoutes } from './github-reviews.ts'
import { checkRoutes } from './github-checks.ts'
import { compareRoutes } from './github-compare.ts'
import { graphqlRoutes } from './github-graphql.ts'
import { repositoryRoutes } from './github-repository.ts'

/**
 * GET /repos/{owner}/{repo}/contents/{path} as api.github.com answers it
 * (@octokit/openapi-types `repos/get-content`, default media type): a
 * file's base64 content wrapped every 60 characters, none over 1 MB
 * (`encoding: "none"`); a link to a file in the tree answered with that file,
 * under the file's own path; other links as `type: "symlink"` with `target`;
 * submodules as `type: "submodule"`; a folder as a list of entries; a path
 * through a link or a submodule does not exist (404).
 */
function contentsReply(
  tree: Record<string, ServerTreeEntry>,
  c: { params: string[]; url?: unknown }
): { status: number; data: unknown } {
  const file = decodeURIComponent(c.params[0] ?? '').replace(/^\/+|\/+$/g, '')
  const base = (name: string, size: number, type: string) => ({
    type,
    size,
    name: name.split('/').pop() ?? name,
    path: name,
    sha: createHash('sha1').update(name).digest('hex'),
    url: `https://api.github.com/repos/o/r/contents/${name}`,
    git_url: null,
    html_url: null,
    download_url: null,
    _links: {
      self: `https://api.github.com/repos/o/r/contents/${name}`,
      git: null,
      html: null
    }
  })
  const fileReply = (name: string, text: string) => {
    const size = Buffer.byteLength(text, 'utf8')
    const big = size > 1_000_000
    return {
      status: 200,
      data: {
        ...base(name, size, 'file'),
        encoding: big ? 'none' : 'base64',
        content: big
          ? ''
          : Buffer.from(text, 'utf8')
              .toString('base64')
              .replace(/.{60}/g, '$&\n')
      }
    }
  }
  const entry = tree[file]
  if (typeof entry === 'string') return fileReply(file, entry)
  if (entry && 'symlink' in entry) {
    const target = path.posix.normalize(
      path.posix.join(path.posix.dirname(file), entry.symlink)
    )
    const pointed = tree[target]
    if (typeof pointed === 'string') return fileReply(target, pointed)
    return {
      status: 200,
      data: {
        ...base(file, entry.symlink.length, 'symlink'),
        target: entry.symlink
      }
    }
  }
  if (entry && 'submodule' in entry) {
    return {
      status: 200,
      data: {
        ...base(file, 0, 'submodule'),
        submodule_git_url: entry.submodule
      }
    }
  }
  const below = Object.keys(tree).filter((k) => k.startsWith(`${file}/`))
  if (below.length === 0) throw new HttpError(404, 'Not Found')
  const names = [
    ...new Set(below.map((k) => k.slice(file.length + 1).split('/')[0] ?? ''))
  ]
  return {
    status: 200,
    data: names.map((n) => {
      const full = `${file}/${n}`
      const e = tree[full]
      // A folder's listing calls a submodule a "file" (the API's own quirk).
      const type =
        e === undefined
          ? 'dir'
          : typeof e === 'string' || 'submodule' in e
            ? 'file'
            : 'symlink'
      return base(full, typeof e === 'string' ? Buffer.byteLength(e) : 0, type)
    })
  }
}

function findComment(s: ServerState, id: string): ServerComment {
  const c = s.comments.find((x) => x.id === Number(id))
  if (!c) throw new HttpError(404, 'Not Found')
  return c
}

function checkBody(body: unknown, doc: string): string {
  if (typeof body !== 'string') throw new HttpError(422, 'Invalid request.')
  // GitHub counts characters (code points), not UTF-16 units or bytes.
  if ([...body].length > BODY_LIMIT) {
    throw new HttpError(422, 'Validation Failed', {
      errors: [
        {
          resource: 'IssueComment',
          code: 'custom',
          field: 'body',
          message: `body is too long (maximum is ${BODY_LIMIT} characters)`
        }
      ],
      documentation_url: `${DOCS}/issues/comments#${doc}`
    })
  }
  return body
}

/**
 * What GitHub's diff limits refuse, worded as its 406 is: over 300 files or
 * 20,000 changed lines (or `diffTooLarge` set); undefined when it renders.
 */
function diffTooLarge(p: ServerPull): string | undefined {
  const lines = p.files.reduce((n, f) => n + f.additions + f.deletions, 0)
  if (p.files.length > 300 || (p.diffTooLarge && lines <= 20_000))
    return 'files (300)'
  if (lines > 20_000 || p.diffTooLarge) return 'lines (20000)'
  return undefined
}

function pull(s: ServerState, n: string): ServerPull {
  const p = s.pulls[n]
  if (!p) throw new HttpError(404, 'Not Found')
  return p
}

/** The repository part of a route: its owner and name must match the state's. */
export const R = '/repos/{owner}/{repo}'
export const routes: [string, Handler][] = [
  [
    'GET /user',
    (s) => {
      if (s.userEndpoint === 'forbidden') {
        throw new HttpError(403, 'Resource not accessible by integration')
      }
      return { status: 200, data: userJson(s.identity, s) }
    }
  ],
  [
    `GET ${R}/issues/{issue_number}/comments`,
    (s, c) => {
      const n = Number(c.params[0])
      const all = s.comments.filter((x) => x.issueNumber === n)
      const { slice, link } = page(all, c)
      const data = slice.map((x) => commentJson(x, s, c.base))
      return { status: 200, data, headers: link ? { link } : {} }
    }
  ],
  [
    `POST ${R}/issues/{issue_number}/comments`,
    (s, c) => {
      const n = Number(c.params[0])
      if (!s.issues.includes(n) && !s.pulls[String(n)]) {
        throw new HttpError(404, 'Not Found')
      }
      const body = checkBody(c.body.body, 'create-an-issue-comment')
      const t = now()
      const comment: ServerComment = {
        id: s.nextId++,
        issueNumber: n,
        body,
        user: s.identity,
        createdAt: t,
        updatedAt: t,
        app: s.app
      }
      s.comments.push(comment)
      return { status: 201, data: commentJson(comment, s, c.base) }
    }
  ],
  [
    `GET ${R}/issues/comments/{comment_id}`,
    (s, c) => ({
      status: 200,
      data: commentJson(findComment(s, c.params[0] ?? ''), s, c.base)
    })
  ],
  [
    `PATCH ${R}/issues/comments/{comment_id}`,
    (s, c) => {
      const comment = findComment(s, c.params[0] ?? '')
      comment.body = checkBody(c.body.body, 'update-an-issue-comment')
      comment.updatedAt = now()
      return { status: 200, data: commentJson(comment, s, c.base) }
    }
  ],
  [
    `DELETE ${R}/issues/comments/{comment_id}`,
    (s, c) => {
      const comment = findComment(s, c.params[0] ?? '')
      s.comments = s.comments.filter((x) => x !== comment)
      return { status: 204 }
    }
  ],
  [
    `POST ${R}/issues/comments/{comment_id}/reactions`,
    (s, c) => {
      const comment = findComment(s, c.params[0] ?? '')
      const content = String(c.body.content)
      if (![...REACTIONS, ...ROCKET_EYES].includes(content)) {
        throw new HttpError(422, 'Validation Failed')
      }
      const same = s.reactions.find(
        (r) =>
          r.commentId === comment.id &&
          r.content === content &&
          r.user.login === s.identity.login
      )
      const reaction = same ?? {
        id: s.nextId++,
        commentId: comment.id,
        content,
        user: s.identity
      }
      if (!same) s.reactions.push(reaction)
      const data = {
        id: reaction.id,
        node_id: `REA_${reaction.id}`,
        user: userJson(reaction.user, s),
        content,
        created_at: now()
      }
      return { status: same ? 200 : 201, data }
    }
  ],
  [
    `DELETE ${R}/issues/comments/{comment_id}/reactions/{reaction_id}`,
    (s, c) => {
      const id = Number(c.params[1])
      const before = s.reactions.length
      s.reactions = s.reactions.filter((r) => r.id !== id)
      if (s.reactions.length === before) throw new HttpError(404, 'Not Found')
      return { status: 204 }
    }
  ],
  [
    `GET ${R}/collaborators/{username}/permission`,
    (s, c) => {
      const login = decodeURIComponent(c.params[0] ?? '')
      const role = s.permissions[login]
      if (!role) throw new HttpError(404, 'Not Found')
      // `permission` is the legacy coarse level; `role_name` the real role.
      const legacy: Record<string, string> = {
        maintain: 'write',
        triage: 'read'
      }
      const roleName = typeof role === 'string' ? role : role.role_name
      const permission =
        typeof role === 'string' ? (legacy[role] ?? role) : role.permission
      const user = { login, id: 1, type: 'User' } as ServerUser
      return {
        status: 200,
        data: {
          permission,
          role_name: roleName,
          user: userJson(user, s)
        }
      }
    }
  ],
  [
    `GET ${R}/pulls/{pull_number}`,
    (s, c) => {
      const n = c.params[0] ?? ''
      const p = pull(s, n)
      if (/\.diff\b/.test(c.accept)) {
        const tooLarge = diffTooLarge(p)
        if (tooLarge) {
          // The body as api.github.com sends it (basic-error plus `errors`).
          throw new HttpError(
            406,
            `Sorry, the diff exceeded the maximum number of ${tooLarge}. ` +
              "Consider using 'List pull requests files' API or locally cloning the repository instead.",
            {
              errors: [
                { resource: 'PullRequest', field: 'diff', code: 'too_large' }
              ],
              documentation_url:
                'https://docs.github.com/rest/pulls/pulls#list-pull-requests-files'
            }
          )
        }
        return { status: 200, text: p.diff }
      }
      const repo = `${s.owner}/${s.repo}`
      const side = (b: { ref: string; sha: string; repo: string | null }) => ({
        label: `${(b.repo ?? repo).split('/')[0]}:${b.ref}`,
        ref: b.ref,
        sha: b.sha,
        repo:
          b.repo === null ? null : { full_name: b.repo, fork: b.repo !== repo }
      })
      const data = {
        url: `${c.base}/repos/${repo}/pulls/${n}`,
        id: Number(n) + 500_000,
        node_id: `PR_${n}`,
        html_url: `${s.serverUrl}/${repo}/pull/${n}`,
        diff_url: `${s.serverUrl}/${repo}/pull/${n}.diff`,
        number: Number(n),
        state: p.state ?? 'open',
        locked: p.locked ?? false,
        title: p.title,
        body: p.body,
        user: userJson(p.author, s),
        draft: p.draft ?? false,
        labels: (p.labels ?? []).map((name, i) => ({
          id: 9000 + i,
          node_id: `LA_${i}`,
          url: `${c.base}/repos/${repo}/labels/${encodeURIComponent(name)}`,
          name,
          description: null,
          color: 'ededed',
          default: false
        })),
        // null while GitHub computes it, and on conflicts (as the API says).
        merge_commit_sha: p.mergeCommitSha ?? null,
        base: side(p.base),
        head: side(p.head),
        changed_files: p.files.length
      }
      return { status: 200, data }
    }
  ],
  [
    `GET ${R}/pulls/{pull_number}/files`,
    (s, c) => {
      const p = pull(s, c.params[0] ?? '')
      // GitHub lists at most 3,000 files of a pull request, and says nothing
      // of the rest (changed_files still counts them).
      const { slice, link } = page(p.files.slice(0, 3000), c)
      const repo = `${s.owner}/${s.repo}`
      const data = slice.map((f) => ({
        sha: '0'.repeat(40),
        filename: f.filename,
        status: f.status,
        additions: f.additions,
        deletions: f.deletions,
        changes: f.additions + f.deletions,
        blob_url: `${s.serverUrl}/${repo}/blob/${p.head.sha}/${encodeURI(f.filename)}`,
        raw_url: `${s.serverUrl}/${repo}/raw/${p.head.sha}/${encodeURI(f.filename)}`,
        contents_url: `${c.base}/repos/${repo}/contents/${encodeURI(f.filename)}?ref=${p.head.sha}`,
        ...(f.patch === undefined ? {} : { patch: f.patch }),
        ...(f.previousFilename ? { previous_filename: f.previousFilename } : {})
      }))
      return { status: 200, data, headers: link ? { link } : {} }
    }
  ]
]

routes.push(
  [
    `GET ${R}/contents/{path}`,
    (s, c) => contentsReply(s.files?.[c.query.get('ref') ?? ''] ?? {}, c)
  ],
  [
    `GET ${R}/commits/{ref}`,
    (s, c) => {
      const ref = c.params[0] ?? ''
      const p = Object.values(s.pulls).find(
        (x) => x.head.sha === ref || x.base.sha === ref
      )
      if (!p) throw new HttpError(422, `No commit found for SHA: ${ref}`)
      const date =
        p.head.sha === ref
          ? (p.headCommittedAt ?? '2025-11-28T09:00:00Z')
          : '2025-11-01T00:00:00Z'
      const person = { name: 'A Committer', email: 'c@example.com', date }
      return {
        status: 200,
        data: {
          sha: ref,
          node_id: `C_${ref}`,
          commit: { author: person, committer: person, message: 'change' },
          parents: []
        }
      }
    }
  ],
  [
    `GET ${R}/issues/{issue_number}/timeline`,
    (s, c) => {
      const n = c.params[0] ?? ''
      const p = s.pulls[n]
      if (!p && !s.issues.includes(Number(n)))
        throw new HttpError(404, 'Not Found')
      const items = (p?.timeline ?? []).map((e, i) => ({
        id: 9_000_000 + i,
        node_id: `TE_${i}`,
        event: e.event,
        actor: { login: 'someone', id: 1, type: 'User' },
        created_at: e.created_at
      }))
      const { slice, link } = page(items, c)
      const headers: Record<string, string> = link ? { link } : {}
      return { status: 200, data: slice, headers }
    }
  ],
  [
    // @octokit/openapi `workflow-run`, the fields a run attempt is known by.
    `GET ${R}/actions/runs/{run_id}/attempts/{attempt_number}`,
    (s, c) => {
      const [runId = '', attempt = ''] = c.params
      const started = s.runAttempts?.[`${runId}/${attempt}`]
      if (!started) throw new HttpError(404, 'Not Found')
      return {
        status: 200,
        data: {
          id: Number(runId),
          run_attempt: Number(attempt),
          status: 'in_progress',
          conclusion: null,
          created_at: started,
          updated_at: started,
          run_started_at: started
        }
      }
    }
  ]
)

routes.push(...reviewCommentRoutes)
routes.push(...reviewRoutes)
routes.push(...checkRoutes)
routes.push(...compareRoutes)
routes.push(...graphqlRoutes)
routes.push(...repositoryRoutes)

export const compiled = routes.map(([key, handler]) => {
  const [method, template] = key.split(' ') as [string, string]
  const pattern = template.replace(/\{(\w+)\}/g, '([^/]+)')
  return { key, method, re: new RegExp(`^${pattern}$`), handler }
})
