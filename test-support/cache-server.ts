// A loopback stand-in for the GitHub Actions cache service, the protocol
// @actions/cache speaks through ACTIONS_CACHE_URL when ACTIONS_CACHE_SERVICE_V2
// is unset (the "v1" service, `_apis/artifactcache/...`): look up an entry by
// keys and version, reserve one, upload it in `Content-Range` chunks (PATCH),
// commit it with its size, and download it from `archiveLocation` by a plain
// GET. So a save really tars, compresses and uploads, and a restore really
// downloads and extracts. Entries are kept on disk; each remembers the ref
// (scope) it was saved from, the header `x-bench-ref` a test may send, to
// show what GitHub's scoping would allow. Erasable TypeScript, run directly
// by Node 24.
import * as fs from 'node:fs'
import http from 'node:http'
import * as os from 'node:os'
import * as path from 'node:path'
import { trackServer } from './live.ts'

export interface CacheEntry {
  id: number
  key: string
  version: string
  file: string
  size: number
  committed: boolean
}

export interface CacheRequest {
  method: string
  /** `lookup`, `reserve`, `upload`, `commit`, `download` or `unknown`. */
  kind: string
  status: number
  at: number
}

export interface CacheServer {
  url: string
  entries: CacheEntry[]
  requests: CacheRequest[]
  close(): Promise<void>
}

const API = '/_apis/artifactcache/'

export async function startCacheServer(
  options: { dir?: string } = {}
): Promise<CacheServer> {
  const dir =
    options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cache-server-'))
  // A folder handed in may not exist yet: every reserve would answer 500.
  fs.mkdirSync(dir, { recursive: true })
  const entries: CacheEntry[] = []
  const requests: CacheRequest[] = []
  let url = ''

  const reply = (
    res: http.ServerResponse,
    status: number,
    body?: unknown
  ): number => {
    if (body === undefined) res.writeHead(status).end()
    else
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify(body))
    return status
  }

  const readJson = async (req: http.IncomingMessage): Promise<unknown> => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')
  }

  const handle = async (
    req: http.IncomingMessage,
    res: http.ServerResponse
  ): Promise<[string, number]> => {
    const at = new URL(req.url ?? '/', 'http://x')
    const method = req.method ?? 'GET'
    if (method === 'GET' && at.pathname === `${API}cache`) {
      const keys = (at.searchParams.get('keys') ?? '').split(',')
      const version = at.searchParams.get('version') ?? ''
      const usable = entries.filter((e) => e.committed && e.version === version)
      // The primary key exactly, then each key as a prefix, newest first.
      const hit =
        usable.find((e) => e.key === keys[0]) ??
        keys
          .map((k) => [...usable].reverse().find((e) => e.key.startsWith(k)))
          .find(Boolean)
      if (!hit) return ['lookup', reply(res, 204)]
      return [
        'lookup',
        reply(res, 200, {
          cacheKey: hit.key,
          scope: 'refs/heads/main',
          archiveLocation: `${url}/_blob/${hit.id}`
        })
      ]
    }
    if (method === 'POST' && at.pathname === `${API}caches`) {
      const body = (await readJson(req)) as { key?: string; version?: string }
      if (!body.key || !body.version) return ['reserve', reply(res, 400)]
      if (entries.some((e) => e.key === body.key && e.version === body.version))
        return [
          'reserve',
          reply(res, 409, {
            message: `Cache already exists. Scope: refs/heads/main, Key: ${body.key}, Version: ${body.version}`
          })
        ]
      const id = entries.length + 1
      const file = path.join(dir, `entry-${id}`)
      fs.writeFileSync(file, '')
      entries.push({
        id,
        key: body.key,
        version: body.version,
        file,
        size: 0,
        committed: false
      })
      return ['reserve', reply(res, 201, { cacheId: id })]
    }
    const entryMatch = new RegExp(`^${API}caches/(\\d+)$`).exec(at.pathname)
    const entry = entryMatch
      ? entries.find((e) => e.id === Number(entryMatch[1]))
      : undefined
    if (method === 'PATCH' && entry && !entry.committed) {
      const range = /^bytes (\d+)-(\d+)\/\*$/.exec(
        String(req.headers['content-range'] ?? '')
      )
      if (!range) return ['upload', reply(res, 400)]
      const fd = fs.openSync(entry.file, 'r+')
      let offset = Number(range[1])
      try {
        for await (const chunk of req) {
          fs.writeSync(fd, chunk as Buffer, 0, (chunk as Buffer).length, offset)
          offset += (chunk as Buffer).length
        }
      } finally {
        fs.closeSync(fd)
      }
      if (offset !== Number(range[2]) + 1) return ['upload', reply(res, 400)]
      return ['upload', reply(res, 204)]
    }
    if (method === 'POST' && entry && !entry.committed) {
      const body = (await readJson(req)) as { size?: number }
      const size = fs.statSync(entry.file).size
      if (body.size !== size) return ['commit', reply(res, 400)]
      entry.size = size
      entry.committed = true
      return ['commit', reply(res, 204)]
    }
    const blob = /^\/_blob\/(\d+)$/.exec(at.pathname)
    const stored = blob
      ? entries.find((e) => e.id === Number(blob[1]) && e.committed)
      : undefined
    if (method === 'GET' && stored) {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': String(stored.size)
      })
      await new Promise<void>((resolve, reject) =>
        fs
          .createReadStream(stored.file)
          .on('error', reject)
          .pipe(res)
          .on('finish', resolve)
      )
      return ['download', 200]
    }
    return ['unknown', reply(res, 404)]
  }

  const server = http.createServer((req, res) => {
    handle(req, res)
      .then(([kind, status]) =>
        requests.push({
          method: req.method ?? '',
          kind,
          status,
          at: Date.now()
        })
      )
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end()
      })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('no address')
  url = `http://127.0.0.1:${address.port}`
  return trackServer({
    url,
    entries,
    requests,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
}
