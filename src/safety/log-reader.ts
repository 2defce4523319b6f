// Reads files of MassGen's log folder, which an agent may reach (local mode):
// every read is bounded in size and confined to LOG_DIR (links are resolved
// first), so neither a huge file nor a spoofed path makes the action read too
// much or the wrong file, and no read blocks on a FIFO.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { READ_FLAGS } from './no-follow.js'
import { isInside } from '../core/paths.js'
import { decodeHead } from '../core/text.js'

export class LogReader {
  constructor(readonly logDir: string) {}

  /** Resolves links and returns the real path only when it stays inside LOG_DIR. */
  private safe(file: string): string | undefined {
    try {
      const real = fs.realpathSync(file)
      return isInside(real, fs.realpathSync(this.logDir)) ? real : undefined
    } catch {
      return undefined
    }
  }

  readText(
    file: string,
    maxBytes: number
  ): { text: string; truncated: boolean } | undefined {
    const real = this.safe(file)
    if (!real) return undefined
    let fd: number | undefined
    try {
      // The resolved path, opened without following a link swapped in since
      // and without waiting on a FIFO an agent left there.
      fd = fs.openSync(real, READ_FLAGS)
      const stat = fs.fstatSync(fd)
      if (!stat.isFile()) return undefined
      const size = stat.size
      const length = Math.min(size, maxBytes)
      const buffer = Buffer.alloc(length)
      const read = fs.readSync(fd, buffer, 0, length, 0)
      // Cut back to a whole UTF-8 character when the limit split one.
      const text = decodeHead(buffer.subarray(0, read))
      return { text, truncated: size > maxBytes }
    } catch {
      return undefined
    } finally {
      if (fd !== undefined) fs.closeSync(fd)
    }
  }

  list(dir: string): string[] {
    const real = this.safe(dir)
    if (!real) return []
    try {
      return fs.readdirSync(real)
    } catch {
      return []
    }
  }

  /** The newest `turn_N/attempt_M` (numeric order), where status and answers live. */
  newestAttempt(): string | undefined {
    const newest = (dir: string, prefix: string) =>
      this.list(dir)
        .filter((name) => new RegExp(`^${prefix}_\\d+$`).test(name))
        .sort((a, b) => Number(b.split('_')[1]) - Number(a.split('_')[1]))[0]
    const turn = newest(this.logDir, 'turn')
    if (!turn) return undefined
    const attempt = newest(path.join(this.logDir, turn), 'attempt')
    return attempt ? path.join(this.logDir, turn, attempt) : undefined
  }
}
