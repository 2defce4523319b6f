// Creates, or reuses when its marker says it is complete, the pinned MassGen
// virtualenv, with the action's own installer (prepareMassgen, the same code
// the bundle runs: uv bootstrapped from PyPI, the release's lock, the prune
// step), at the folder the action uses for a non-Docker install so the
// action finds it as 'local':
//   ${RUNNER_TOOL_CACHE:-$HOME/.cache}/massgen/<version>-base-py<X.Y>-<os>-<arch>
// Progress goes to stderr; the last line on stdout is the path of the
// massgen executable.
//
//   node scripts/setup-massgen.ts   (run by scripts/setup-massgen.sh)
//   MASSGEN_VERSION overrides 0.1.97; MASSGEN_EXTRAS=docker adds the docker
//   SDK, as the action does in Docker mode.
//
// Node 24 runs src/ directly by stripping the types, but src/ imports its
// modules as './x.js' (what ncc and tsc want); the resolve hook below maps
// such an import to the './x.ts' beside it when no './x.js' exists.
import * as os from 'node:os'
import * as path from 'node:path'
import { registerHooks } from 'node:module'

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context)
    } catch (error) {
      if (!/^\.\.?\/.*\.js$/.test(specifier)) throw error
      return nextResolve(specifier.replace(/\.js$/, '.ts'), context)
    }
  }
})

const { prepareMassgen } = await import('../src/prepare/massgen.ts')
const { createProcessRunner } = await import('../src/process/process.ts')

const say = (line: string) => process.stderr.write(`setup-massgen: ${line}\n`)

function extrasFromEnv(value = 'base'): boolean {
  if (value === 'base' || value === 'docker') return value === 'docker'
  say(`MASSGEN_EXTRAS is '${value}', expected 'base' or 'docker'`)
  process.exit(1)
}

const docker = extrasFromEnv(process.env.MASSGEN_EXTRAS)
try {
  const installation = await prepareMassgen(createProcessRunner(), {
    version: process.env.MASSGEN_VERSION ?? '0.1.97',
    command: undefined,
    docker,
    useCache: false,
    // Any complete install is reused as it is; a fresh one holds its extras.
    needsExtras: false,
    saveCache: false,
    toolCacheDir:
      process.env.RUNNER_TOOL_CACHE ?? path.join(os.homedir(), '.cache'),
    env: process.env,
    log: { debug: say, info: say, warning: say }
  })
  process.stdout.write(`${installation.command}\n`)
} catch (error) {
  say(error instanceof Error ? error.message : String(error))
  process.exit(1)
}
