// MassGen's own check of a merged user config, before the run: with no key
// in its environment and the guard of what it loads by itself.
import * as core from '@actions/core'
import { Inputs } from '../core/constants.js'
import type { ProcessRunner } from '../core/process.js'
import type { RunResult } from '../core/types.js'
import { childEnv } from '../plan/plan.js'
import { withMassgenGuard } from '../safety/massgen-guard.js'
import { withMassgenOnPath } from './launch.js'
import { validateWithMassgen } from './validate-config.js'

/**
 * MassGen's own validation of the merged config, with no key in its
 * environment (it needs none): a config-error result when it finds errors,
 * undefined when the file is valid or MassGen gave no JSON answer.
 */
export async function preflight(
  runner: ProcessRunner,
  installation: { command: string; prefixArgs: string[] },
  configFile: string,
  where: { workDir: string; passEnv: readonly string[]; guardDir: string }
): Promise<Omit<RunResult, 'question'> | undefined> {
  const { workDir, passEnv, guardDir } = where
  const env = withMassgenGuard(
    withMassgenOnPath(
      childEnv(process.env, {}, [], passEnv),
      installation.command
    ),
    guardDir
  )
  const started = Date.now()
  const verdict = await validateWithMassgen(
    runner,
    { ...installation, env },
    configFile,
    workDir
  ).catch(() => undefined)
  if (!verdict) {
    core.info(
      'MassGen gave no validation result; the run validates the config itself.'
    )
    return undefined
  }
  if (verdict.warnings.length > 0)
    core.warning(
      `MassGen's validation warns about the merged config: ${verdict.warnings.join('; ')}`
    )
  if (verdict.valid) {
    core.info('MassGen validated the merged config.')
    return undefined
  }
  verdict.errors.forEach((e) => core.error(`MassGen config error: ${e}`))
  return {
    outcome: 'config-error',
    reason:
      `MassGen's validation rejected the config merged from input '${Inputs.Config}'; ` +
      'nothing was run.',
    exitCode: null,
    agents: [],
    votes: {},
    configErrors: verdict.errors,
    elapsedSeconds: Math.round((Date.now() - started) / 100) / 10
  }
}
