// After the report, no key value may stay in the run's work folder: an agent
// that printed its environment leaves the keys in MassGen's answer files and
// in its workspace. Files holding a key (in any form redaction knows) are
// rewritten, redacted, in bounded memory. Everything in that folder is an
// agent's to plant, so every read and write goes through agent-files.ts:
// links are never followed, and nothing outside that folder is touched.
//
// An agent also chooses the sizes: one `truncate -s 15T` makes a file that
// would take days to read. So the scrub is bounded: a file over the size
// limit is not read but removed (it cannot be shown to hold no key), reading
// stops at the total byte budget and at the deadline, and what was left
// unchecked is counted and said.
import type * as fs from 'node:fs'
import {
  inFolderOf,
  openRegular,
  pipeHandles,
  removeAgentFile,
  rewriteAgentFile,
  walkFiles
} from './agent-files.js'
import { byteNeedles, holdsSecret, redactingStream } from './redact.js'

const CHUNK = 1024 * 1024

interface ScrubLimits {
  /** A larger file is removed unread. */
  fileBytes: number
  /** Bytes read and rewritten in all, before the scrub stops. */
  totalBytes: number
  /** Wall time, before the scrub stops. */
  seconds: number
}

export const SCRUB_LIMITS: ScrubLimits = {
  fileBytes: 256 * 1024 * 1024,
  totalBytes: 2 * 1024 * 1024 * 1024,
  seconds: 120
}

export interface ScrubResult {
  scanned: number
  /** Files that held a key and were rewritten, redacted. */
  scrubbed: string[]
  /** Files over the size limit, removed unread. */
  removed: string[]
  /** Why the scrub stopped before the end of the folder, if it did. */
  stopped?: 'bytes' | 'time'
}

export async function scrubSecrets(
  dir: string,
  secrets: readonly string[],
  limits: ScrubLimits = SCRUB_LIMITS
): Promise<ScrubResult> {
  const needles = byteNeedles(
    [...new Set(secrets.map((s) => s.trim()))].filter((s) => s.length >= 8)
  )
  const result: ScrubResult = { scanned: 0, scrubbed: [], removed: [] }
  if (needles.length === 0) return result
  const budget = new Budget(limits)
  // One read buffer for every file: memory stays flat however many there are.
  // The overlap holds a needle wrapped or spaced out (redact.ts).
  const overlap = 4 * Math.max(...needles.map((n) => n.length))
  const buffer = Buffer.alloc(CHUNK + overlap)
  for (const { full, rel } of walkFiles(dir)) {
    const stop = budget.exhausted()
    if (stop) {
      result.stopped = stop
      break
    }
    result.scanned++
    try {
      const verdict = await holdsAny(dir, rel, needles, buffer, overlap, budget)
      if (verdict === 'too-large') {
        if (await removeAgentFile(dir, rel)) result.removed.push(full)
        continue
      }
      if (verdict !== 'found') continue
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

/** Bytes and time left; a file is charged its size twice when it is rewritten. */
class Budget {
  private bytes = 0
  private readonly deadline: number
  constructor(readonly limits: ScrubLimits) {
    this.deadline = Date.now() + limits.seconds * 1000
  }

  charge(bytes: number): void {
    this.bytes += bytes
  }

  exhausted(): 'bytes' | 'time' | undefined {
    if (this.bytes >= this.limits.totalBytes) return 'bytes'
    if (Date.now() >= this.deadline) return 'time'
    return undefined
  }
}

type Verdict = 'found' | 'clean' | 'too-large' | 'unchecked'

/** Streams the file once, up to its size; chunks overlap so a key split across two is seen. */
function holdsAny(
  root: string,
  rel: string,
  needles: string[],
  buffer: Buffer,
  overlap: number,
  budget: Budget
): Promise<Verdict> {
  return inFolderOf(root, rel, async (folder, name) => {
    const file = await openRegular(folder, name)
    if (!file) return 'unchecked'
    try {
      if (file.stat.size > budget.limits.fileBytes) return 'too-large'
      // Read and, if found, rewritten: charged before, so the total holds.
      budget.charge(2 * file.stat.size)
      return await scan(file.handle, file.stat.size, needles, buffer, overlap)
    } finally {
      await file.handle.close()
    }
  })
}

async function scan(
  handle: fs.promises.FileHandle,
  size: number,
  needles: string[],
  buffer: Buffer,
  overlap: number
): Promise<Verdict> {
  let kept = 0
  let position = 0
  // Never past the size fstat gave: a file still growing is not followed.
  while (position < size) {
    const want = Math.min(CHUNK, size - position)
    const { bytesRead } = await handle.read(buffer, kept, want, position)
    if (bytesRead === 0) return 'clean'
    position += bytesRead
    const view = buffer.subarray(0, kept + bytesRead)
    if (holdsSecret(view.toString('latin1'), needles)) return 'found'
    kept = Math.min(overlap, view.length)
    view.copy(buffer, 0, view.length - kept)
  }
  return 'clean'
}
