// A loopback stand-in for the GitHub REST API, reached through GITHUB_API_URL.
// Only the routes and fields the action uses, shaped like api.github.com
// answers them. Erasable TypeScript (no enums, no parameter properties) so
// Node 24 runs it directly: `node test-support/github-server.ts --port 0`.
// The state, replies and routes live beside it (github-state.ts,
// github-replies.ts, github-routes.ts); every name it exported is still
// exported here. Imports between test-support files carry the `.ts` suffix,
// which Node's type stripping needs (tsconfig: rewriteRelativeImportExtensions).
import http from 'node:http'
import { readFileSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { HttpError, type Ctx, type Reply } from './github-replies.ts'
import { compiled, R } from './github-routes.ts'
import { trackServer } from './live.ts'
import {
  defaultState,
  DOCS,
  type Fault,
  type ServerState
} from './github-state.ts'

export {
  addComment,
  BODY_LIMIT,
  defaultState,
  faults,
  type Fault,
  type Role,
  type ServerApp,
  type ServerCheckAnnotation,
  type ServerCheckRun,
  type ServerComment,
  type ServerFile,
  type ServerPull,
  type ServerReaction,
  type ServerReview,
  type ServerReviewComment,
  type ServerState,
  type ServerUser
} from './github-state.ts'

export { addReviewComment } from './github-review-comments.ts'
export { pushToPull, type Push } from './github-compare.ts'

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

  return trackServer<GitHubServer>({
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
  })
}

// CLI: node test-support/github-server.ts --port N [--state FILE] [--dump FILE]
async function cli(argv: string[]): Promise<void> {
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name)
    return i >= 0 ? argv[i + 1] : undefined
  }
  const stateFile = arg('--state')
  const dump = arg('--dump')
  const initial: Partial<ServerState> = stateFile
    ? (JSON.parse(readFileSync(stateFile, 'utf8')) as Partial<ServerState>)
    : {}
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
