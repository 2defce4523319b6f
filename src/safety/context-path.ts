// `context-path` is what the agents read (and with `context-permission:
// write`, change), what the read server serves, what the sandbox binds,
// what Docker mounts and what the ACL grant opens. The checkout under it is
// the pull request's to shape: a fork's head can turn `src` into a link to
// `/`, to `../../_temp` (the job's command files, checkout's credentials) or
// to anything else. So the path must stay inside the workspace, checked a
// component at a time without following any link, and what is handed on is
// that checked path, which then holds no link at all: every later consumer
// resolves it to the very folder that was checked. A link is refused even
// when it points inside the workspace: the workflow can name its target, and
// a pull request could otherwise widen `src` to `.git` or to the whole
// checkout. The check runs again right before the grant and the launch.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Inputs } from '../core/constants.js'
import { isInside } from '../core/paths.js'
import { showValue } from '../core/text.js'
import { openFolderPath, WalkStopped } from './no-follow.js'

/** The context path leaves the workspace, or cannot be confined: nothing runs. */
export class ContextPathError extends Error {}

const RULE =
  `Input '${Inputs.ContextPath}' must name a file or folder inside the workspace ` +
  'with no symbolic link on the way (a pull request can add links)'

/**
 * The real path of `candidate` (absolute, or relative to `workspace`), when
 * it is the workspace or below it and no component from the workspace down
 * is a symbolic link; the workspace's own path is the runner's and trusted.
 */
export function confineToWorkspace(
  workspace: string,
  candidate: string
): string {
  const root = fs.realpathSync(workspace)
  const parts = partsBelow(workspace, root, candidate)
  try {
    openFolderPath(root, parts).close()
  } catch (error) {
    if (!(error instanceof WalkStopped)) throw error
    const last = error.index === parts.length - 1
    if (!(last && error.kind === 'file'))
      throw refusal(error, parts.slice(0, error.index + 1).join('/'), candidate)
  }
  return path.join(root, ...parts)
}

/** Checks `confined` again; throws when it is no longer the same plain path. */
export function recheckConfined(workspace: string, confined: string): void {
  if (confineToWorkspace(workspace, confined) !== confined)
    throw new ContextPathError(
      `${RULE}: ${confined} changed during the run's preparation. Nothing was run.`
    )
}

/** The path's components below the workspace; '..' may not climb out. */
function partsBelow(
  workspace: string,
  root: string,
  candidate: string
): string[] {
  const lexical = path.resolve(workspace, candidate || '.')
  // The workspace may be given by its own path or by its real path.
  const base = [path.resolve(workspace), root].find((b) => isInside(lexical, b))
  if (base === undefined)
    throw new ContextPathError(
      `${RULE}: '${showValue(candidate)}' resolves to ${showValue(lexical)}, outside ` +
        `the workspace ${root}. Nothing was run.`
    )
  return path.relative(base, lexical).split(path.sep).filter(Boolean)
}

/** Why the walk to the context path stopped at `shown`, for the workflow's author. */
function refusal(
  stop: WalkStopped,
  shown: string,
  candidate: string
): ContextPathError {
  const at = `'${showValue(shown)}'`
  switch (stop.kind) {
    case 'missing':
      return new ContextPathError(
        `Input '${Inputs.ContextPath}': '${showValue(candidate)}' does not exist ` +
          `(${at} is missing in the workspace). Nothing was run.`
      )
    case 'link':
      return new ContextPathError(
        `${RULE}: ${at} is a symbolic link (to '${showValue(stop.linkTarget ?? '?')}'). ` +
          `Nothing was run. Name a real folder as '${Inputs.ContextPath}', or check out ` +
          'a commit without the link.'
      )
    case 'file':
      return new ContextPathError(
        `${RULE}: ${at} is a file, not a folder. Nothing was run.`
      )
    case 'other':
      return new ContextPathError(
        `${RULE}: ${at} is neither a folder nor a regular file. Nothing was run.`
      )
    case 'changed':
      return new ContextPathError(
        `${RULE}: ${at} changed while it was checked. Nothing was run.`
      )
  }
}
