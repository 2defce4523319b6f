// A few lines of Python (massgen-guard.py beside this file) that MassGen
// loads at start-up, before any of its own code (Python imports
// `sitecustomize` from the first folder of PYTHONPATH that has one), to turn
// off what MassGen 0.1.97 reads by itself from the folders it is given
// (docs/massgen-0.1.97.md, "Files MassGen loads by itself"):
//
// - ProjectInstructionsSection (massgen/system_prompt_sections.py) walks up
//   from every context path through up to 10 parent folders and puts the
//   first CLAUDE.md or AGENTS.md into every agent's system prompt, links
//   followed, no size cap: the pull request's own, or one above the
//   checkout. The guard makes it find nothing; the repository's own
//   instructions come from the base commit instead (project-instructions.ts).
// - the answers MassGen frames as `<agentN.M> ... <end of agentN.M>` pass
//   through neutralizeMarkers' pattern first (massgen-markers.ts).
// - in a read-only review, OutputFirstVerificationSection (the same file:
//   about 5.1 KB of its 9.9 KB system prompt, on every request, on running,
//   viewing and clicking through websites, games, audio the agents made) is
//   built disabled: a review makes no artifact (docs/massgen-0.1.97.md).
//
// python-dotenv (which MassGen calls at start-up and in its tools) is turned
// off by PYTHON_DOTENV_DISABLED in the same environment.
//
// A MassGen started ahead of its run (the vote round's, vote/warm-ballot.ts)
// imports its CLI here and waits for its arguments on stdin (WARM_START_ENV).
//
// In Docker mode the read container starts while MassGen starts
// (prepare/read-container.ts): MassGen's MCP client (mcp_tools/client.py,
// MCPClient.connect, where every MCP server is started) then waits until the
// file READ_GATE_ENV names exists, which the action writes once the container
// serves; without the wait MassGen would start the read server in a container
// not yet there, and its agents would quietly read nothing.
//
// Where the guard lives: a folder beside the run's own (`<work folder>-guard`:
// the sandbox hands the work folder itself to the agents' user), readable by
// every user (in a root job's sandbox MassGen runs as nobody; it holds no
// secret), written before MassGen starts, never in the checkout; in local
// mode's sandbox it is bound read-only, and Docker-mode containers never
// see it. MassGen's cwd is the run's folder, and its
// console script puts only its own bin folder first on sys.path, so no file
// of the checkout can shadow the guard; PYTHONPATH is the guard alone.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { MARKER_CLOSE, MARKER_OPEN, MARKER_PATTERN } from './massgen-markers.js'

/** MassGen's MCP servers start once the file this names exists (Docker mode's read container). */
export const READ_GATE_ENV = 'MASSGEN_ACTION_READ_GATE'

/**
 * Set to 1 in the environment of a MassGen started ahead of its run (the
 * vote round's, vote/warm-ballot.ts): the guard imports MassGen's CLI, says
 * WARM_READY_LINE on stderr, and MassGen's main then waits for its
 * arguments, one JSON list of strings on stdin (EOF first: not needed, exit
 * 0). The guard takes the variable out of the environment, so no process
 * MassGen starts (its MCP servers load the guard too) waits as well.
 */
export const WARM_START_ENV = 'MASSGEN_ACTION_WARM_START'
export const WARM_READY_LINE =
  'massgen-action guard: MassGen imported, waiting for its arguments'
export const WARM_HANDED_LINE = 'massgen-action guard: arguments handed over'

/** The line the guard prints on stderr once it has patched MassGen. */
export const GUARD_ACTIVE_LINE =
  'massgen-action guard: project instruction files off, answer markers neutralised'

/**
 * The guard's Python, bundled beside the action's code (the bundler copies
 * what this URL names into dist/ and rewrites the URL to that copy), and the
 * settings it reads from massgen_guard.json beside it.
 */
const GUARD_SOURCE = new URL('./massgen-guard.py', import.meta.url)

function guardSettings(framing: GuardFraming): string {
  return JSON.stringify({
    review_only: framing.reviewOnly,
    no_background_tools: framing.noBackgroundTools,
    marker_pattern: MARKER_PATTERN,
    marker_open: MARKER_OPEN,
    marker_close: MARKER_CLOSE,
    active_line: GUARD_ACTIVE_LINE,
    read_gate_env: READ_GATE_ENV,
    warm_start_env: WARM_START_ENV,
    warm_ready_line: WARM_READY_LINE,
    warm_handed_line: WARM_HANDED_LINE
  })
}

/** What of MassGen's framing the run has no use for. */
export interface GuardFraming {
  /** A read-only review: no section on testing the artifacts agents make. */
  readonly reviewOnly: boolean
  /**
   * Nothing the agents may call runs for long (a read-only review with no
   * commands and no config of the user's, whose tools the action does not
   * know): no schemas to start and poll background jobs, for the backends
   * MassGen builds them on (CustomToolAndMCPBackend; Claude Code's backend
   * has its own and keeps them).
   */
  readonly noBackgroundTools: boolean
}

/**
 * Writes the guard into a new folder beside the run's folder and returns it
 * (for PYTHONPATH). Exclusive creation: nothing already there is followed or
 * reused.
 */
export function writeMassgenGuard(
  workDir: string,
  framing: GuardFraming
): string {
  const dir = `${workDir}-guard`
  fs.mkdirSync(dir, { mode: 0o755 })
  const written = { flag: 'wx', mode: 0o444 } as const
  fs.writeFileSync(
    path.join(dir, 'massgen_guard.json'),
    guardSettings(framing),
    written
  )
  fs.writeFileSync(
    path.join(dir, 'sitecustomize.py'),
    fs.readFileSync(GUARD_SOURCE, 'utf8'),
    written
  )
  return dir
}

/**
 * MassGen's environment with the guard loaded and python-dotenv off. Any
 * PYTHONPATH of the runner's is dropped (MassGen's virtualenv needs none,
 * and a relative entry would be read from MassGen's cwd); no user site
 * folder either (a usercustomize or .pth file in ~/.local would run in it).
 */
export function withMassgenGuard(
  env: NodeJS.ProcessEnv,
  guardDir: string
): NodeJS.ProcessEnv {
  return {
    ...env,
    PYTHONPATH: guardDir,
    PYTHONNOUSERSITE: '1',
    PYTHON_DOTENV_DISABLED: '1'
  }
}
