// After the report, no key value may stay in the run's work folder: an agent
// that printed its environment leaves the keys in MassGen's answer files and
// in its workspace. Files holding a key are rewritten, redacted, in bounded
// memory; links are never followed.
import * as fs from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { redactingStream } from './artifact.js'
import { walkFiles } from './files.js'

const CHUNK = 1024 * 1024

export async function scrubSecrets(
  dir: string,
  secrets: string[]
): Promise<{ scanned: number; scrubbed: string[] }> {
  const needles = [...new Set(secrets.map((s) => s.trim()))]
    .filter((s) => s.length >= 8)
    .map((s) => Buffer.from(s, 'utf8'))
  const result = { scanned: 0, scrubbed: [] as string[] }
  if (needles.length === 0) return result
  // One read buffer for every file: memory stays flat however many there are.
  const overlap = Math.max(...needles.map((n) => n.length)) - 1
  const buffer = Buffer.alloc(CHUNK + overlap)
  for (const { full: file } of walkFiles(dir)) {
    result.scanned++
    if (!holdsAny(file, needles, buffer, overlap)) continue
    try {
      const temp = `${file}.scrub-${process.pid}`
      await pipeline(
        fs.createReadStream(file),
        redactingStream(secrets),
        fs.createWriteStream(temp, { mode: 0o600 })
      )
      fs.renameSync(temp, file)
      result.scrubbed.push(file)
    } catch {
      // A read-only folder (the pull request's context): cannot hold a key.
    }
  }
  return result
}

/** Streams the file once; chunks overlap so a key split across two is seen. */
function holdsAny(
  file: string,
  needles: Buffer[],
  buffer: Buffer,
  overlap: number
): boolean {
  let fd: number | undefined
  try {
    fd = fs.openSync(file, 'r')
    let kept = 0
    for (;;) {
      const read = fs.readSync(fd, buffer, kept, CHUNK, null)
      if (read === 0) return false
      const view = buffer.subarray(0, kept + read)
      if (needles.some((n) => view.includes(n))) return true
      kept = Math.min(overlap, view.length)
      view.copy(buffer, 0, view.length - kept)
    }
  } catch {
    return false
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
