// What the run is lent and gives back: the checkout, confined to the
// workspace with its persisted token taken out of the agents' reach, and,
// in Docker mode, the run's containers and their write access.
import * as core from '@actions/core'
import type { ProcessRunner } from '../core/process.js'
import { saveStepState } from '../core/step-state.js'
import type { Settings } from '../core/types.js'
import { revokeContainerWrite } from '../prepare/container-write-access.js'
import { removeLeftoverContainers } from '../run/run-containers.js'
import { confineToWorkspace } from '../safety/context-path.js'
import {
  credentialState,
  restoreGitCredentials,
  takeGitCredentials,
  type TakenCredentials,
  type TakenFile
} from '../safety/git-credentials.js'
import { redactSecrets } from '../safety/redact.js'
import { errorText } from '../core/text.js'

export const NO_CREDENTIALS: TakenCredentials = {
  files: [],
  secrets: [],
  originals: new Map()
}

/** The settings the run reads its checkout with, and what was taken out of it. */
export interface LentCheckout {
  readonly settings: Settings
  readonly credentials: TakenCredentials
}

/**
 * Before anything reads, serves, binds, mounts or opens the context path
 * to agents: confined to the workspace, and the checkout's persisted token
 * out of it for the run (masked).
 */
export async function lendCheckout(settings: Settings): Promise<LentCheckout> {
  const confined: Settings = {
    ...settings,
    contextPath: confineToWorkspace(settings.workspace, settings.contextPath)
  }
  const credentials = await takeGitCredentials(
    confined.contextPath,
    core,
    process.env.RUNNER_TEMP
  )
  for (const value of credentials.secrets) core.setSecret(value)
  saveStepState('gitCredentials', credentialState(credentials))
  return { settings: confined, credentials }
}

/**
 * What a step gives back once MassGen is gone: the run's containers and
 * their write access (Docker mode), then the checkout's credentials.
 */
interface Lent {
  readonly docker: boolean
  readonly workDir: string | undefined
  readonly credentials: readonly TakenFile[]
  /** The originals kept in memory (the main step), or the token to rebuild them (the post step). */
  readonly restoreFrom: { originals: Map<string, Buffer> } | { token: string }
}

export async function takeBack(
  runner: ProcessRunner,
  lent: Lent,
  secrets: readonly string[]
): Promise<void> {
  if (lent.docker && lent.workDir) {
    await removeLeftoverContainers(runner, lent.workDir, core)
    // Only once no container of the run is left to race the revoke, and
    // before the credentials go back into the checkout.
    await revokeContainerWrite(runner, lent.workDir, core)
  }
  // No agent reads the config any more.
  if (lent.credentials.length > 0) {
    await restoreGitCredentials(
      [...lent.credentials],
      core,
      lent.restoreFrom
    ).catch((error: unknown) =>
      core.warning(
        `Could not put the checkout's credentials back: ${redactSecrets(errorText(error), secrets)}`
      )
    )
    saveStepState('gitCredentials', '')
  }
}
