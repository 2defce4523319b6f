// After the report, no key value may stay in the run's work folder: an agent
// that printed its environment leaves the keys in MassGen's answer files and
// in its workspace. Files holding a key (in any form redaction knows) are
// rewritten, redacted, in bounded memory. Everything in that folder is an
// agent's to plant, so every read and write goes through agent-files.ts:
// links are never followed, and nothing outside the folder is touched.
import type * as fs from 'node:fs'
import {
  inFolderOf,
  openRegular,
  pipeHandles,
  rewriteAgentFile,
  walkFiles
} from './agent-files.js'
import { byteNeedles, holdsSecret, redactingStream } from './redact.js'

const CHUNK = 1024 * 1024

export async function scrubSecrets(
  dir: string,
  secrets: string[]
): Promise<{ scanned: number; scrubbed: string[] }> {
  const needles = byteNeedles(
    [...new Set(secrets.map((s) => s.trim()))].filter((s) => s.length >= 8)
  )
  const result = { scanned: 0, scrubbed: [] as string[] }
  if (needles.length === 0) return result
  // One read buffer for every file: memory stays flat however many there are.
  // The overlap holds a needle wrapped or spaced out (redact.ts).
  const overlap = 4 * Math.max(...needles.map((n) => n.length))
  const buffer = Buffer.alloc(CHUNK + overlap)
  for (const { full, rel } of walkFiles(dir)) {
    result.scanned++
    try {
      if (!(await holdsAny(dir, rel, needles, buffer, overlap))) continue
      const rewritten = await rewriteAgentFile(dir, rel, (source, target) =>
        pipeHandles(source, redactingStream(secrets), target)
      )
      if (rewritten) result.scrubbed.push(full)
    } catch {
      // A read-only folder (the pull request's context): cannot hold a key.
    }
  }
  return result
}

/** Streams the file once; chunks overlap so a key split across two is seen. */
function holdsAny(
  root: string,
  rel: string,
  needles: string[],
  buffer: Buffer,
  overlap: number
): Promise<boolean> {
  return inFolderOf(root, rel, async (folder, name) => {
    const file = await openRegular(folder, name)
    if (!file) return false
    try {
      return await scan(file.handle, needles, buffer, overlap)
    } finally {
      await file.handle.close()
    }
  })
}

async function scan(
  handle: fs.promises.FileHandle,
  needles: string[],
  buffer: Buffer,
  overlap: number
): Promise<boolean> {
  let kept = 0
  for (;;) {
    const { bytesRead } = await handle.read(buffer, kept, CHUNK, null)
    if (bytesRead === 0) return false
    const view = buffer.subarray(0, kept + bytesRead)
    if (holdsSecret(view.toString('latin1'), needles)) return true
    kept = Math.min(overlap, view.length)
    view.copy(buffer, 0, view.length - kept)
  }
}
