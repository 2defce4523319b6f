// What the two roles that hold the token (matrix and aggregate) are handed by
// roles.ts: the step's inputs and settings, the pull request, and the doors.
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
