// Walking a folder the run wrote: regular files only, links never followed.
import * as fs from 'node:fs'
import * as path from 'node:path'

export interface WalkedFile {
  /** Absolute path. */
  full: string
  /** Path relative to the walked folder, with `/`. */
  rel: string
}

export function* walkFiles(
  root: string,
  enter: (folderName: string) => boolean = () => true
): Generator<WalkedFile> {
  const walk = function* (dir: string, rel: string): Generator<WalkedFile> {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) {
        if (enter(entry.name)) yield* walk(full, childRel)
      } else if (entry.isFile()) yield { full, rel: childRel }
    }
  }
  yield* walk(root, '')
}
