// role 'aggregate': the shards' records, checked, merged into one report.
import type { GitHubApi } from '../github/api.js'
import type { Settings } from '../core/types.js'
import type { ShardInputs } from '../inputs/shard-inputs.js'
import type { ArtifactDoor } from './download.js'

export async function aggregateJob(job: {
  inputs: ShardInputs
  settings: Settings
  pullNumber: number | undefined
  github: () => GitHubApi
  artifacts: () => Promise<ArtifactDoor>
  workDir: string
}): Promise<void> {
  await Promise.resolve(job)
  throw new Error("Role 'aggregate' is not available in this build yet.")
}
