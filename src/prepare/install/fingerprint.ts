// What a virtualenv looked like right after it was installed, as one hash:
// every entry's relative path, type, mode, size, inode, modification and
// change times, and a link's target, in sorted order. The change time
// (ctime) cannot be set back by an unprivileged process, so a file that an
// agent rewrote, replaced, chmodded or touched back to its old mtime
// changes the hash. Hashing 1.4 GB of content would take longer than the
// install saves; the inode times see every write without reading a byte.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'

export interface VenvFingerprint {
  /** sha256 of the sorted entry lines, hex. */
  hash: string
  /** Entries below the folder (the folder itself included). */
  entries: number
}

/** The fingerprint of a folder tree; links are recorded, never followed. */
export function fingerprintTree(root: string): VenvFingerprint {
  const lines: string[] = []
  const visit = (relative: string) => {
    const full = relative ? path.join(root, relative) : root
    const stat = fs.lstatSync(full, { bigint: true })
    const kind = stat.isDirectory()
      ? 'd'
      : stat.isFile()
        ? 'f'
        : stat.isSymbolicLink()
          ? 'l'
          : 'o'
    const target = kind === 'l' ? fs.readlinkSync(full) : ''
    lines.push(
      [
        JSON.stringify(relative),
        kind,
        stat.mode.toString(8),
        stat.size,
        stat.ino,
        stat.mtimeNs,
        stat.ctimeNs,
        JSON.stringify(target)
      ].join(' ')
    )
    if (kind !== 'd') return
    for (const name of fs.readdirSync(full).sort())
      visit(relative ? path.join(relative, name) : name)
  }
  visit('')
  const hash = createHash('sha256')
  for (const line of lines) hash.update(line + '\n')
  return { hash: hash.digest('hex'), entries: lines.length }
}
