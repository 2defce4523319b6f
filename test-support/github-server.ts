// A loopback stand-in for the GitHub REST API, reached through GITHUB_API_URL.
// Only the routes and fields the action uses, shaped like api.github.com
// answers them. Erasable TypeScript (no enums, no parameter properties) so
// Node 24 runs it directly: `node test-support/github-server.ts --port 0`.
import http from 'node:http'
import { readFileSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

export type Role = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'
export interface ServerUser {
  login: string
  id: number
  type: 'User' | 'Bot'
}
export interface ServerApp {
  id: number
  slug: string
  name: string
}
export interface ServerComment {
  id: number
  issueNumber: number
  body: string
  user: ServerUser
  createdAt: string
  updatedAt: string
  app: ServerApp | null
}
export interface ServerReaction {
  id: number
  commentId: number
  content: string
  user: ServerUser
}
export interface ServerFile {
  filename: string
  status: string
  additions: number
  deletions: number
}
export interface ServerPull {
  title: string
  body: string | null
  author: ServerUser
  base: { ref: string; sha: string; repo: string }
  head: { ref: string; sha: string; repo: string | null }
  files: ServerFile[]
  diff: string
  /** GitHub answers 406 for diffs over 300 files or 20,000 lines. */
  diffTooLarge?: boolean
}
export interface ServerState {
  owner: string
  repo: string
  /** Base of html_url links. */
  serverUrl: string
  /** The account the token acts as: author of everything it writes. */
  identity: ServerUser
  /** `GET /user`: 'forbidden' is what GITHUB_TOKEN and app tokens get. */
  userEndpoint: 'ok' | 'forbidden'
  /** The app that writes for the token, as comments report it. */
  app: ServerApp | null
  /** Issue numbers that exist (pull numbers exist too). */
  issues: number[]
  comments: ServerComment[]
  reactions: ServerReaction[]
  /**
   * Collaborator roles by login; an unknown login answers 404. A custom
   * role gives its name and the base permission GitHub reports with it.
   */
  permissions: Record<
    string,
    Role | { role_name: string; permission: 'admin' | 'write' | 'read' }
  >
  pulls: Record<string, ServerPull>
  nextId: number
}
export interface Fault {
  status: number
  headers?: Record<string, string>
  body?: unknown
}
export interface RecordedRequest {
  method: string
  path: string
  query: Record<string, string>
  /** Lower-case names; `authorization` is left out. */
  headers: Record<string, string>
  body: unknown
}
export interface GitHubServer {
  url: string
  state: ServerState
  requests: RecordedRequest[]
  /** Queue a fault for `route` ('GET /repos/{owner}/{repo}/...' or '*'). */
  injectFault(route: string, fault: Fault, times?: number): void
  close(): Promise<void>
}

/** GitHub's limit on issue comment bodies, in characters. */
export const BODY_LIMIT = 65_536
const DOCS = 'https://docs.github.com/rest'
const REACTIONS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray']
const ROCKET_EYES = ['rocket', 'eyes']

export const faults = {
  serverError: (status = 500): Fault => ({
    status,
    body: { message: 'Server Error' }
  }),
  secondaryRateLimit: (retryAfter = 1, status = 403): Fault => ({
    status,
    headers: { 'retry-after': String(retryAfter) },
    body: {
      message:
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api`
    }
  }),
  primaryRateLimit: (resetInSeconds = 1, status = 403): Fault => ({
    status,
    headers: {
      'retry-after': String(resetInSeconds),
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-used': '5000',
      'x-ratelimit-resource': 'core',
      'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + resetInSeconds)
    },
    body: {
      message: 'API rate limit exceeded for installation ID 1.',
      documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api`
    }
  }),
  notFound: (): Fault => ({ status: 404, body: { message: 'Not Found' } }),
  forbidden: (): Fault => ({
    status: 403,
    body: { message: 'Resource not accessible by integration' }
  })
}

const GITHUB_ACTIONS: ServerUser = {
  login: 'github-actions[bot]',
  id: 41898282,
  type: 'Bot'
}

export function defaultState(): ServerState {
  return {
    owner: 'octo-org',
    repo: 'octo-repo',
    serverUrl: 'https://github.com',
    identity: GITHUB_ACTIONS,
    userEndpoint: 'forbidden',
    app: { id: 15368, slug: 'github-actions', name: 'GitHub Actions' },
    issues: [1],
    comments: [],
    reactions: [],
    permissions: {},
    pulls: {},
    nextId: 1000
  }
}

/** Put a comment straight into the state, as if posted earlier. */
export function addComment(
  state: ServerState,
  issueNumber: number,
  body: string,
  user: ServerUser = state.identity,
  app: ServerApp | null = user === state.identity ? state.app : null
): ServerComment {
  const t = '2025-11-28T10:00:00Z'
  const comment: ServerComment = {
    id: state.nextId++,
    issueNumber,
    body,
    user,
    createdAt: t,
    updatedAt: t,
    app
  }
  state.comments.push(comment)
  return comment
}

class HttpError extends Error {
  readonly status: number
  readonly extra: Record<string, unknown>
  constructor(status: number, message: string, extra = {}) {
    super(message)
    this.status = status
    this.extra = extra
  }
}

interface Ctx {
  params: string[]
  query: URLSearchParams
  body: Record<string, unknown>
  accept: string
  base: string
  path: string
}
interface Reply {
  status: number
  data?: unknown
  text?: string
  headers?: Record<string, string>
}
type Handler = (s: ServerState, c: Ctx) => Reply

function userJson(u: ServerUser, s: ServerState): Record<string, unknown> {
  return {
    login: u.login,
    id: u.id,
    node_id: `U_${u.id}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${u.id}?v=4`,
    html_url: `${s.serverUrl}/${u.type === 'Bot' ? 'apps/' : ''}${u.login.replace('[bot]', '')}`,
    type: u.type,
    site_admin: false
  }
}

function commentJson(c: ServerComment, s: ServerState, base: string) {
  const repo = `${s.owner}/${s.repo}`
  const kind = s.pulls[String(c.issueNumber)] ? 'pull' : 'issues'
  const mine = s.reactions.filter((r) => r.commentId === c.id)
  const count = (k: string): number =>
    mine.filter((r) => r.content === k).length
  return {
    url: `${base}/repos/${repo}/issues/comments/${c.id}`,
    html_url: `${s.serverUrl}/${repo}/${kind}/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${base}/repos/${repo}/issues/${c.issueNumber}`,
    id: c.id,
    node_id: `IC_${Buffer.from(String(c.id)).toString('base64url')}`,
    user: userJson(c.user, s),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    author_association: c.user.type === 'Bot' ? 'NONE' : 'MEMBER',
    body: c.body,
    reactions: {
      url: `${base}/repos/${repo}/issues/comments/${c.id}/reactions`,
      total_count: mine.length,
      ...Object.fromEntries(
        [...REACTIONS, ...ROCKET_EYES].map((k) => [k, count(k)])
      )
    },
    performed_via_github_app: c.app
  }
}

function page<T>(items: T[], c: Ctx): { slice: T[]; link?: string } {
  const perPage = Math.min(
    Math.max(Number(c.query.get('per_page')) || 30, 1),
    100
  )
  const current = Math.max(Number(c.query.get('page')) || 1, 1)
  const last = Math.max(Math.ceil(items.length / perPage), 1)
  const at = (n: number): string => {
    const q = new URLSearchParams(c.query)
    q.set('per_page', String(perPage))
    q.set('page', String(n))
    return `<${c.base}${c.path}?${q}>`
  }
  const rels: string[] = []
  if (current > 1) rels.push(`${at(current - 1)}; rel="prev"`)
  if (current < last)
    rels.push(`${at(current + 1)}; rel="next"`, `${at(last)}; rel="last"`)
  if (current > 1) rels.push(`${at(1)}; rel="first"`)
  const slice = items.slice((current - 1) * perPage, current * perPage)
  return rels.length ? { slice, link: rels.join(', ') } : { slice }
}

function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z')
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

function pull(s: ServerState, n: string): ServerPull {
  const p = s.pulls[n]
  if (!p) throw new HttpError(404, 'Not Found')
  return p
}

const R = '/repos/{owner}/{repo}'
const routes: [string, Handler][] = [
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
        if (p.diffTooLarge) {
          throw new HttpError(
            406,
            'Sorry, the diff exceeded the maximum number of files (300).',
            {
              errors: [
                { resource: 'PullRequest', field: 'diff', code: 'too_large' }
              ]
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
        state: 'open',
        title: p.title,
        body: p.body,
        user: userJson(p.author, s),
        draft: false,
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
      const { slice, link } = page(p.files, c)
      const data = slice.map((f) => ({
        sha: '0'.repeat(40),
        filename: f.filename,
        status: f.status,
        additions: f.additions,
        deletions: f.deletions,
        changes: f.additions + f.deletions
      }))
      return { status: 200, data, headers: link ? { link } : {} }
    }
  ]
]

const compiled = routes.map(([key, handler]) => {
  const [method, template] = key.split(' ') as [string, string]
  const pattern = template.replace(/\{(\w+)\}/g, '([^/]+)')
  return { key, method, re: new RegExp(`^${pattern}$`), handler }
})

export async function startGitHubServer(
  initial: Partial<ServerState> = {},
  port = 0
): Promise<GitHubServer> {
  const state: ServerState = { ...defaultState(), ...initial }
  const requests: RecordedRequest[] = []
  const queued = new Map<string, Fault[]>()
  let base = ''

  const send = (res: http.ServerResponse, reply: Reply): void => {
    const headers: Record<string, string> = {
      'x-github-request-id': `LOOP:${requests.length}`,
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 3600),
      ...reply.headers
    }
    if (reply.text !== undefined) {
      headers['content-type'] = 'text/plain; charset=utf-8'
      res.writeHead(reply.status, headers).end(reply.text)
    } else if (reply.status === 204) {
      res.writeHead(204, headers).end()
    } else {
      headers['content-type'] = 'application/json; charset=utf-8'
      res.writeHead(reply.status, headers).end(JSON.stringify(reply.data))
    }
  }

  const handle = (req: http.IncomingMessage, raw: string): Reply => {
    const url = new URL(req.url ?? '/', base)
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers)) {
      if (k !== 'authorization' && v !== undefined) headers[k] = String(v)
    }
    let body: unknown = raw
    try {
      body = raw ? JSON.parse(raw) : undefined
    } catch {
      // Keep the raw text: a test may want to see what was sent.
    }
    const method = req.method ?? 'GET'
    requests.push({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body
    })
    const route = compiled.find(
      (r) => r.method === method && r.re.test(url.pathname)
    )
    if (!route) return { status: 404, data: { message: 'Not Found' } }
    const fault = queued.get(route.key)?.shift() ?? queued.get('*')?.shift()
    if (fault)
      return {
        status: fault.status,
        data: fault.body ?? {},
        headers: fault.headers ?? {}
      }
    const params = (route.re.exec(url.pathname) ?? []).slice(1)
    const [owner, repo] =
      params.length > 0 && route.key.includes(R) ? params : []
    if (
      route.key.includes(R) &&
      (owner !== state.owner || repo !== state.repo)
    ) {
      return { status: 404, data: { message: 'Not Found' } }
    }
    const ctx: Ctx = {
      params: route.key.includes(R) ? params.slice(2) : params,
      query: url.searchParams,
      body: (typeof body === 'object' && body !== null ? body : {}) as Record<
        string,
        unknown
      >,
      accept: headers['accept'] ?? '',
      base,
      path: url.pathname
    }
    try {
      return route.handler(state, ctx)
    } catch (e) {
      if (!(e instanceof HttpError)) throw e
      const data = {
        message: e.message,
        documentation_url: DOCS,
        ...e.extra,
        status: String(e.status)
      }
      return { status: e.status, data }
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      try {
        send(res, handle(req, Buffer.concat(chunks).toString('utf8')))
      } catch (e) {
        send(res, { status: 500, data: { message: String(e) } })
      }
    })
  })
  await new Promise<void>((resolve) =>
    server.listen(port, '127.0.0.1', resolve)
  )
  const address = server.address()
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`

  return {
    url: base,
    state,
    requests,
    injectFault(route, fault, times = 1) {
      const list = queued.get(route) ?? []
      for (let i = 0; i < times; i++) list.push(fault)
      queued.set(route, list)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

// CLI: node test-support/github-server.ts --port N [--state FILE] [--dump FILE]
async function cli(argv: string[]): Promise<void> {
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name)
    return i >= 0 ? argv[i + 1] : undefined
  }
  const stateFile = arg('--state')
  const dump = arg('--dump')
  const initial = stateFile ? JSON.parse(readFileSync(stateFile, 'utf8')) : {}
  const server = await startGitHubServer(initial, Number(arg('--port') ?? 0))
  process.stdout.write(`GITHUB_API_URL=${server.url}\n`)
  const stop = async (): Promise<void> => {
    if (dump) {
      const out = { state: server.state, requests: server.requests }
      writeFileSync(dump, JSON.stringify(out, null, 2))
    }
    await server.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop())
  process.on('SIGINT', () => void stop())
}

if (
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href
) {
  await cli(process.argv.slice(2))
}
