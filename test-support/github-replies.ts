// How the loopback GitHub answers: the JSON shapes of users and comments as
// api.github.com gives them, Link-header pagination, and the error a route
// throws to answer with a status.
import type { ServerComment, ServerState, ServerUser } from './github-state.ts'

export const REACTIONS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray']
export const ROCKET_EYES = ['rocket', 'eyes']

export class HttpError extends Error {
  readonly status: number
  readonly extra: Record<string, unknown>
  constructor(status: number, message: string, extra = {}) {
    super(message)
    this.status = status
    this.extra = extra
  }
}

export interface Ctx {
  params: string[]
  query: URLSearchParams
  body: Record<string, unknown>
  accept: string
  base: string
  path: string
}
export interface Reply {
  status: number
  data?: unknown
  text?: string
  headers?: Record<string, string>
}
export type Handler = (s: ServerState, c: Ctx) => Reply

export function userJson(
  u: ServerUser,
  s: ServerState
): Record<string, unknown> {
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

export function commentJson(c: ServerComment, s: ServerState, base: string) {
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

export function page<T>(items: T[], c: Ctx): { slice: T[]; link?: string } {
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
    return `<${c.base}${c.path}?${q.toString()}>`
  }
  const rels: string[] = []
  if (current > 1) rels.push(`${at(current - 1)}; rel="prev"`)
  if (current < last)
    rels.push(`${at(current + 1)}; rel="next"`, `${at(last)}; rel="last"`)
  if (current > 1) rels.push(`${at(1)}; rel="first"`)
  const slice = items.slice((current - 1) * perPage, current * perPage)
  return rels.length ? { slice, link: rels.join(', ') } : { slice }
}

export function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z')
}
