// A loopback stand-in for the GitHub Actions artifact service (v4 artifacts,
// what @actions/artifact v2+ talks to), reached through ACTIONS_RESULTS_URL
// with ACTIONS_RUNTIME_TOKEN. It answers the two Twirp JSON calls an upload
// makes, `.../ArtifactService/CreateArtifact` and `FinalizeArtifact`, and
// plays the Azure blob behind the `signed_upload_url` CreateArtifact returns:
// `PUT ?comp=block&blockid=...` per block, then `PUT ?comp=blocklist`, or one
// `PUT` of the whole blob. For downloads (@actions/artifact's listArtifacts
// and downloadArtifact, a matrix review's jobs): `ListArtifacts` (this run's
// finalized artifacts, by name or id), `GetSignedArtifactURL` and a `GET` of
// the blob behind it. Erasable TypeScript (no enums, no parameter
// properties) so Node 24 runs it directly. Also a small zip reader, to look
// inside what was uploaded.
import { createHash, randomBytes } from 'node:crypto'
import http from 'node:http'
import { inflateRawSync } from 'node:zlib'
import { trackServer } from './live.ts'

const SERVICE = '/twirp/github.actions.results.api.v1.ArtifactService/'
const TWIRP_CALLS = [
  'CreateArtifact',
  'FinalizeArtifact',
  'ListArtifacts',
  'GetSignedArtifactURL'
]

export interface StoredArtifact {
  id: number
  name: string
  workflowRunBackendId: string
  workflowJobRunBackendId: string
  /** When CreateArtifact made it (ListArtifacts' `created_at`). */
  createdAt: Date
  /** The committed blob (the zip); empty until committed. */
  bytes: Buffer
  contentType?: string
  expiresAt?: string
  /** FinalizeArtifact accepted it: size and hash matched the blob. */
  finalized: boolean
  /** What FinalizeArtifact claimed. */
  size?: number
  hash?: string
}

export interface ArtifactRequest {
  method: string
  /** `CreateArtifact`, `FinalizeArtifact`, `blob` or `unknown`. */
  kind: string
  path: string
  query: Record<string, string>
  /** Lower-case names; `authorization` is left out. */
  headers: Record<string, string>
  /** The bearer token sent, if any. */
  token?: string
  /** Parsed JSON for the Twirp calls; the byte count for blob writes. */
  body: unknown
  status: number
}

export interface ArtifactFault {
  status: number
  /** Twirp error message (`msg`), for the Twirp calls. */
  msg?: string
  /** How many requests fail; default every one. */
  times?: number
}

export interface ArtifactServer {
  url: string
  artifacts: StoredArtifact[]
  requests: ArtifactRequest[]
  /** Faults by call: `CreateArtifact`, `FinalizeArtifact` or `blob`. */
  faults: Record<string, ArtifactFault>
  /**
   * Stores a finalized artifact as if a job of the run had uploaded it (a
   * taken-over shard's crafted zip, say); replaces one of the same name
   * unless `keep` (two of one name: what `latest` listing would hide).
   * Created now unless `createdAt` says when (an earlier attempt's upload).
   */
  put(
    name: string,
    bytes: Buffer,
    runBackendId?: string,
    options?: { keep?: boolean; createdAt?: Date }
  ): StoredArtifact
  close(): Promise<void>
}

export interface ArtifactServerOptions {
  faults?: Record<string, ArtifactFault>
  /** The token expected as `Authorization: Bearer`; any token if unset. */
  token?: string
  /** First artifact id handed out. */
  firstId?: number
}

const b64url = (value: unknown): string =>
  Buffer.from(JSON.stringify(value)).toString('base64url')

/**
 * An unsigned JWT shaped like the runner's ACTIONS_RUNTIME_TOKEN: the `scp`
 * claim carries `Actions.Results:<run backend id>:<job backend id>`, which is
 * all @actions/artifact reads from it (it never checks the signature).
 */
export const DEFAULT_RUN_BACKEND_ID = 'c4d7a0a2-5b6f-4e1d-9f7e-000000004242'

export function fakeRuntimeToken(
  runBackendId = DEFAULT_RUN_BACKEND_ID,
  jobBackendId = 'a1b2c3d4-0000-4000-8000-000000000001'
): string {
  const now = Math.floor(Date.now() / 1000)
  const header = b64url({ typ: 'JWT', alg: 'none' })
  const payload = b64url({
    scp: `Actions.ExampleScope Actions.Results:${runBackendId}:${jobBackendId}`,
    iat: now,
    exp: now + 3600
  })
  return `${header}.${payload}.`
}

/** Block ids of a `<BlockList>` body, in order (Latest, Committed, Uncommitted). */
export function parseBlockList(xml: string): string[] {
  return [
    ...xml.matchAll(/<(Latest|Committed|Uncommitted)>([^<]*)<\/\1>/g)
  ].map((m) => m[2] ?? '')
}

export async function startArtifactServer(
  options: ArtifactServerOptions = {}
): Promise<ArtifactServer> {
  const artifacts: StoredArtifact[] = []
  const requests: ArtifactRequest[] = []
  const faults: Record<string, ArtifactFault> = { ...options.faults }
  const failed: Record<string, number> = {}
  /** Staged, uncommitted blocks per artifact id. */
  const blocks = new Map<number, Map<string, Buffer>>()
  /** The `sig` of each artifact's upload URL. */
  const sigs = new Map<number, string>()
  let nextId = options.firstId ?? 1001
  let base = ''

  const fault = (kind: string): ArtifactFault | undefined => {
    const f = faults[kind]
    if (!f) return undefined
    const n = (failed[kind] ?? 0) + 1
    if (f.times !== undefined && n > f.times) return undefined
    failed[kind] = n
    return f
  }

  const twirp = (
    kind: string,
    body: Record<string, unknown>
  ): { status: number; data: unknown } => {
    const twirpError = (status: number, code: string, msg: string) => ({
      status,
      data: { code, msg }
    })
    const runId = scalar(body.workflow_run_backend_id)
    const jobId = scalar(body.workflow_job_run_backend_id)
    const name = scalar(body.name)
    if (kind === 'ListArtifacts') {
      if (!runId || !jobId)
        return twirpError(400, 'invalid_argument', 'missing backend ids')
      const byName = scalar(body.name_filter)
      const byId = scalar(body.id_filter)
      return {
        status: 200,
        data: {
          artifacts: artifacts
            .filter(
              (a) =>
                a.finalized &&
                a.workflowRunBackendId === runId &&
                (!byName || a.name === byName) &&
                (!byId || String(a.id) === byId)
            )
            .map((a) => ({
              workflow_run_backend_id: a.workflowRunBackendId,
              workflow_job_run_backend_id: a.workflowJobRunBackendId,
              database_id: String(a.id),
              name: a.name,
              size: String(a.bytes.length),
              created_at: a.createdAt.toISOString()
            }))
        }
      }
    }
    if (kind === 'GetSignedArtifactURL') {
      const artifact = artifacts.find(
        (a) =>
          a.finalized && a.workflowRunBackendId === runId && a.name === name
      )
      if (!artifact) return twirpError(404, 'not_found', 'artifact not found')
      return {
        status: 200,
        data: {
          signed_url: `${base}/blobs/actions-results/${artifact.id}/${encodeURIComponent(name)}.zip?sp=r&sig=${sigs.get(artifact.id) ?? ''}`
        }
      }
    }
    if (!runId || !jobId || !name)
      return twirpError(400, 'invalid_argument', 'missing backend ids or name')
    const same = (a: StoredArtifact) =>
      a.workflowRunBackendId === runId && a.name === name
    if (kind === 'CreateArtifact') {
      if (body.version !== 7)
        return twirpError(400, 'invalid_argument', 'unsupported version')
      if (artifacts.some(same))
        return twirpError(
          409,
          'already_exists',
          'an artifact with this name already exists on the workflow run'
        )
      const id = nextId++
      const artifact: StoredArtifact = {
        id,
        name,
        workflowRunBackendId: runId,
        workflowJobRunBackendId: jobId,
        createdAt: new Date(),
        bytes: Buffer.alloc(0),
        finalized: false
      }
      if (typeof body.mime_type === 'string')
        artifact.contentType = body.mime_type
      if (typeof body.expires_at === 'string')
        artifact.expiresAt = body.expires_at
      artifacts.push(artifact)
      const sig = randomBytes(18).toString('base64url')
      sigs.set(id, sig)
      const query = new URLSearchParams({
        sv: '2023-11-03',
        se: new Date(Date.now() + 3600_000).toISOString(),
        sr: 'b',
        sp: 'cw',
        sig
      })
      return {
        status: 200,
        data: {
          ok: true,
          signed_upload_url: `${base}/blobs/actions-results/${id}/${encodeURIComponent(name)}.zip?${query.toString()}`
        }
      }
    }
    // FinalizeArtifact: the blob must be committed, its size and hash right.
    const artifact = artifacts.find((a) => same(a) && !a.finalized)
    if (!artifact) return twirpError(404, 'not_found', 'artifact not found')
    const size = Number(body.size ?? 0)
    const hash = typeof body.hash === 'string' ? body.hash : undefined
    const actual = `sha256:${createHash('sha256').update(artifact.bytes).digest('hex')}`
    if (size !== artifact.bytes.length || (hash && hash !== actual))
      return twirpError(
        400,
        'invalid_argument',
        `size or hash mismatch: ${size}/${hash} vs ${artifact.bytes.length}/${actual}`
      )
    artifact.finalized = true
    artifact.size = size
    if (hash) artifact.hash = hash
    return { status: 200, data: { ok: true, artifact_id: String(artifact.id) } }
  }

  /** The Azure blob endpoint: block, block list, or a whole-blob PUT. */
  const blob = (
    req: http.IncomingMessage,
    url: URL,
    raw: Buffer
  ): {
    status: number
    text?: string
    bytes?: Buffer
    headers?: Record<string, string>
  } => {
    const id = Number(
      /^\/blobs\/actions-results\/(\d+)\//.exec(url.pathname)?.[1]
    )
    const artifact = artifacts.find((a) => a.id === id)
    const storageError = (status: number, code: string) => ({
      status,
      headers: { 'content-type': 'application/xml', 'x-ms-error-code': code },
      text: `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`
    })
    if (!artifact || url.searchParams.get('sig') !== sigs.get(id))
      return storageError(403, 'AuthenticationFailed')
    if (req.method === 'GET' && artifact.finalized)
      return {
        status: 200,
        headers: {
          'content-type': 'application/zip',
          'content-length': String(artifact.bytes.length)
        },
        bytes: artifact.bytes
      }
    if (req.method !== 'PUT') return storageError(405, 'UnsupportedHttpVerb')
    const comp = url.searchParams.get('comp')
    const staged = blocks.get(id) ?? new Map<string, Buffer>()
    blocks.set(id, staged)
    const ok = {
      status: 201,
      headers: {
        etag: `"0x${id.toString(16)}${staged.size}"`,
        'last-modified': new Date().toUTCString(),
        'x-ms-request-combined': 'true',
        'x-ms-version': '2025-11-05',
        'x-ms-request-server-encrypted': 'true'
      }
    }
    if (comp === 'block') {
      const blockId = url.searchParams.get('blockid')
      if (!blockId) return storageError(400, 'InvalidQueryParameterValue')
      staged.set(blockId, raw)
      return ok
    }
    if (comp === 'blocklist') {
      const ids = parseBlockList(raw.toString('utf8'))
      const parts: Buffer[] = []
      for (const blockId of ids) {
        const part = staged.get(blockId)
        if (!part) return storageError(400, 'InvalidBlockList')
        parts.push(part)
      }
      artifact.bytes = Buffer.concat(parts)
      staged.clear()
      const type = req.headers['x-ms-blob-content-type']
      if (typeof type === 'string') artifact.contentType = type
      return ok
    }
    if (comp === null && req.headers['x-ms-blob-type'] === 'BlockBlob') {
      artifact.bytes = raw
      return ok
    }
    return storageError(400, 'InvalidQueryParameterValue')
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      const url = new URL(req.url ?? '/', base)
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers))
        if (k !== 'authorization' && v !== undefined) headers[k] = String(v)
      const auth = req.headers.authorization
      const token = auth?.startsWith('Bearer ') ? auth.slice(7) : undefined
      const isTwirp = req.method === 'POST' && url.pathname.startsWith(SERVICE)
      const kind = isTwirp
        ? url.pathname.slice(SERVICE.length)
        : url.pathname.startsWith('/blobs/')
          ? 'blob'
          : 'unknown'
      let body: unknown = raw.length
      if (isTwirp) {
        try {
          body = JSON.parse(raw.toString('utf8'))
        } catch {
          body = raw.toString('utf8')
        }
      }
      const record: ArtifactRequest = {
        method: req.method ?? 'GET',
        kind,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers,
        ...(token !== undefined ? { token } : {}),
        body,
        status: 0
      }
      requests.push(record)
      const json = (status: number, data: unknown) => {
        record.status = status
        res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify(data))
      }
      const f = fault(kind)
      if (f) {
        if (kind === 'blob') {
          record.status = f.status
          res.writeHead(f.status, { 'x-ms-error-code': 'InternalError' }).end()
        } else {
          json(f.status, { code: 'internal', msg: f.msg ?? 'internal error' })
        }
        return
      }
      if (isTwirp) {
        if (!token || (options.token !== undefined && token !== options.token))
          return json(401, { code: 'unauthenticated', msg: 'bad token' })
        if (!TWIRP_CALLS.includes(kind))
          return json(404, { code: 'bad_route', msg: `no ${kind} here` })
        if (typeof body !== 'object' || body === null)
          return json(400, { code: 'malformed', msg: 'not JSON' })
        const reply = twirp(kind, body as Record<string, unknown>)
        return json(reply.status, reply.data)
      }
      if (kind === 'blob') {
        const reply = blob(req, url, raw)
        record.status = reply.status
        res
          .writeHead(reply.status, reply.headers)
          .end(reply.bytes ?? reply.text)
        return
      }
      json(404, { code: 'bad_route', msg: 'not found' })
    })
  })
  await new Promise<void>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve())
  )
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  base = `http://127.0.0.1:${port}`
  return trackServer<ArtifactServer>({
    url: base,
    artifacts,
    requests,
    faults,
    put(name, bytes, runBackendId = DEFAULT_RUN_BACKEND_ID, options = {}) {
      const kept = artifacts.findIndex(
        (a) => a.name === name && a.workflowRunBackendId === runBackendId
      )
      if (kept >= 0 && !options.keep) artifacts.splice(kept, 1)
      const id = nextId++
      sigs.set(id, randomBytes(18).toString('base64url'))
      const artifact: StoredArtifact = {
        id,
        name,
        workflowRunBackendId: runBackendId,
        workflowJobRunBackendId: 'a1b2c3d4-0000-4000-8000-0000000000ff',
        createdAt: options.createdAt ?? new Date(),
        bytes,
        finalized: true,
        size: bytes.length
      }
      artifacts.push(artifact)
      return artifact
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  })
}

/**
 * The files of a zip (path → content), read from its central directory, so
 * streamed zips (sizes in data descriptors) work. Stored and deflated entries;
 * no zip64, no encryption. Folder entries (ending in `/`) are left out.
 */
export function readZip(zip: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>()
  let eocd = -1
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i
      break
    }
  }
  if (eocd < 0) throw new Error('not a zip: no end of central directory')
  const count = zip.readUInt16LE(eocd + 10)
  let at = zip.readUInt32LE(eocd + 16)
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50)
      throw new Error(`bad central directory entry at ${at}`)
    const method = zip.readUInt16LE(at + 10)
    const compressed = zip.readUInt32LE(at + 20)
    const size = zip.readUInt32LE(at + 24)
    const nameLength = zip.readUInt16LE(at + 28)
    const extraLength = zip.readUInt16LE(at + 30)
    const commentLength = zip.readUInt16LE(at + 32)
    const local = zip.readUInt32LE(at + 42)
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength)
    at += 46 + nameLength + extraLength + commentLength
    if (zip.readUInt32LE(local) !== 0x04034b50)
      throw new Error(`bad local header for ${name}`)
    const start =
      local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
    const data = zip.subarray(start, start + compressed)
    if (name.endsWith('/')) continue
    const content =
      method === 0
        ? Buffer.from(data)
        : method === 8
          ? inflateRawSync(data)
          : undefined
    if (!content) throw new Error(`${name}: compression method ${method}`)
    if (content.length !== size) throw new Error(`${name}: size mismatch`)
    files.set(name, content)
  }
  return files
}

/** A JSON string or number as text; anything else is missing (''). */
function scalar(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number'
    ? String(value)
    : ''
}
