// The repository's own instructions for agents (AGENTS.md, else CLAUDE.md,
// at the root), given to the agents as the maintainers' text.
//
// Whose file counts: the BASE commit's, read through the API, never the
// checkout's. A pull request's AGENTS.md is its author's to write, and
// MassGen would read it (or one in any folder above the checkout) into every
// system prompt; the guard turns that off (massgen-guard.ts). On push,
// schedule and dispatch runs the checked-out commit is the repository's own
// and is read the same way, at GITHUB_SHA: one path, with no link, FIFO or
// huge file of the workspace to handle.
import * as core from '@actions/core'
import { visibleText } from '../safety/visible-text.js'
import type { GitHubApi } from '../github/api.js'
import { notAFile } from '../github/contents.js'
import { Inputs } from '../core/constants.js'
import { fenceFor } from '../safety/markdown.js'
import { clipBytes } from '../core/text.js'
import type { StageLog } from '../core/log.js'

/** Tried in this order; the first regular file wins. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'] as const

/** Bytes given at most; a longer file is cut (and the agents told). */
const PROJECT_INSTRUCTIONS_MAX_BYTES = 16_000

/** The contents API sends no text over 1 MB: anything larger is not read. */
const FETCH_MAX_BYTES = 1_000_000

interface ProjectInstructions {
  file: string
  ref: string
  text: string
  /** The file's size when it was cut to PROJECT_INSTRUCTIONS_MAX_BYTES. */
  cutFrom?: number
}

/**
 * The first of INSTRUCTION_FILES that is a regular file at `ref`; a link or
 * anything else is skipped with a warning. Unreadable: none, and a warning.
 */
export async function readProjectInstructions(
  github: GitHubApi,
  ref: string,
  log: StageLog = core
): Promise<ProjectInstructions | undefined> {
  const at = `at ${ref.slice(0, 12)}`
  try {
    for (const file of INSTRUCTION_FILES) {
      const got = await github.getFileAtCommit(file, ref, FETCH_MAX_BYTES)
      if (got.kind === 'absent') continue
      if (got.kind !== 'file') {
        log.warning(
          `${file} ${at} is ${notAFile(got)}: not given to the agents ` +
            `(input '${Inputs.ProjectInstructions}').`
        )
        continue
      }
      const text = clipBytes(got.text, PROJECT_INSTRUCTIONS_MAX_BYTES)
      log.info(`Project instructions: ${file} ${at} (${got.bytes} bytes)`)
      return {
        file,
        ref,
        text,
        ...(text.length < got.text.length ? { cutFrom: got.bytes } : {})
      }
    }
    return undefined
  } catch (error) {
    log.warning(
      `Could not read the repository's instructions ${at} (${String(error)}); ` +
        'the agents get none.'
    )
    return undefined
  }
}

/** The instructions after the question, framed as the maintainers' text. */
export function projectInstructionsNote(pi: ProjectInstructions): string {
  const text = visibleText(pi.text).trim()
  const fence = fenceFor(text)
  const cut = pi.cutFrom
    ? `; cut to its first ${PROJECT_INSTRUCTIONS_MAX_BYTES} of ${pi.cutFrom} bytes`
    : ''
  return (
    `\n\n---\nThe repository's own instructions for agents: ${pi.file} at commit ` +
    `${pi.ref}, written by the repository's maintainers (read from GitHub${cut}; ` +
    `not the pull request's copy). Follow them where they apply to this task:\n` +
    `${fence}text\n${text}\n${fence}`
  )
}
