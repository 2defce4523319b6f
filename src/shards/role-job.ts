// What the two roles that hold the token (matrix and aggregate) are handed by
// the pipeline (pipeline/roles.ts): the step's inputs and settings, the pull
// request, and the doors; and what a role's finish hands back.
import type { ReviewReport } from '../core/review.js'
import type { Settings } from '../core/types.js'
import type { GitHubApi } from '../github/api.js'
import type { ShardInputs } from '../inputs/shard-inputs.js'
import type { SettingsFile } from '../inputs/settings-file.js'
import type { ArtifactDoor } from './download.js'

export interface TokenRoleJob {
  readonly inputs: ShardInputs
  readonly settings: Settings
  readonly pullNumber: number | undefined
  readonly github: () => GitHubApi
  readonly artifacts: () => Promise<ArtifactDoor>
  readonly workDir: string
  /** The repository config file the settings were read with, for the shards' plan. */
  readonly settingsFile?: SettingsFile
}

/** How a role's finish ends the step: its failure, if any, and the review for the gate. */
export interface Ending {
  readonly failure: string | undefined
  readonly review?: ReviewReport
}
