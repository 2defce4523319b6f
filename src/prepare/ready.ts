// Everything else before MassGen starts, while the pipeline reads the
// context, plans the round and writes its config (pipeline/execute.ts): the
// setup's three parts at once (prepare-run.ts), the read container once the
// image and the config are there, the guard of what MassGen loads by itself,
// and MassGen's own check of a merged user config.
import * as core from '@actions/core'
import { saveStepState } from '../core/step-state.js'
import type { ProcessRunner } from '../core/process.js'
import type { RunResult, Settings } from '../core/types.js'
import type { RunContext } from '../context/run-context.js'
import { readOnlyReview, readToolsOnly } from '../plan/plan.js'
import type { PlannedAnswers } from '../plan/run-plan.js'
import { writeMassgenGuard } from '../safety/massgen-guard.js'
import { preflight } from './preflight.js'
import { prepareRun, type PreparedRun } from './prepare-run.js'
import {
  startReadContainerBeside,
  type StartingReadContainer
} from './read-container.js'
import { readFolders } from './run-config.js'
import { describeSetup } from './setup.js'

/** The answers' round as planned, with the context it was planned from. */
export type Planned = PlannedAnswers & { readonly context: RunContext }

export interface ReadyRun extends Readonly<PreparedRun<Planned>> {
  /** The folder of the guard MassGen's every start goes through. */
  readonly guardDir: string
  /** Docker mode's read container, started beside the setup and MassGen's own start. */
  readonly reading?: StartingReadContainer
  /** MassGen's validation refused the merged config: nothing is to run. */
  readonly refused?: Omit<RunResult, 'question'>
}

export async function readyRun(
  settings: Settings,
  /** The answers' round, its config written once it resolves. */
  configured: Promise<Planned>,
  /** The first live view, on its way: a failure report waits for it. */
  firstView: Promise<void>,
  where: { workDir: string; runner: ProcessRunner }
): Promise<ReadyRun> {
  const { workDir, runner } = where
  // Beside the MassGen restore or install and MassGen's own start, not after.
  let reading: StartingReadContainer | undefined
  // Settled before the run ends, so the run-end sweep sees the container.
  const readingSettled = () => reading?.up.catch(() => undefined)
  const setup = await prepareRun(settings, runner, workDir, configured, {
    env: process.env,
    log: core,
    withImage: (config) => {
      if (config.readContainer)
        reading = startReadContainerBeside(
          runner,
          config.readServer,
          readFolders(settings, config.context),
          config.readContainer,
          core,
          workDir
        )
    }
  }).catch(async (error: unknown) => {
    // A failure report must come after the first view, never before it.
    await configured.catch(() => undefined)
    await readingSettled()
    await firstView
    throw error
  })
  core.info(`Setup: ${describeSetup(setup.timings)}`)
  // Fingerprinted before MassGen first starts; saved by the post step.
  if (setup.installation.pendingSave)
    saveStepState(
      'massgenCacheSave',
      JSON.stringify(setup.installation.pendingSave)
    )
  // Before MassGen first starts (the preflight too): what it loads by itself.
  const guardDir = writeMassgenGuard(workDir, {
    reviewOnly: readOnlyReview(settings),
    noBackgroundTools: readToolsOnly(settings)
  })
  const refused = settings.userConfig
    ? await preflight(runner, setup.installation, setup.config.configFile, {
        workDir,
        passEnv: settings.passEnv,
        guardDir
      })
    : undefined
  // Nothing runs: the read container settles first (the run-end sweep), then the first view.
  if (refused) await readingSettled()
  return {
    ...setup,
    guardDir,
    ...(reading ? { reading } : {}),
    ...(refused ? { refused } : {})
  }
}
