// Path checks every stage uses: one "is inside" for the whole action.
import * as path from 'node:path'

/** True when `candidate` is `root` or below it (lexically; resolve links first). */
export function isInside(candidate: string, root: string): boolean {
  const relative = path.relative(path.resolve(root), path.resolve(candidate))
  return (
    relative === '' ||
    (relative !== '..' &&
      !relative.startsWith(`..${path.sep}`) &&
      !path.isAbsolute(relative))
  )
}
