// role 'shard': one shard's review, on a runner that holds no GitHub token.
import type { ProcessRunner } from '../core/process.js'
import type { Settings } from '../core/types.js'
import type { ShardInputs } from '../inputs/shard-inputs.js'
import type { ArtifactDoor } from './download.js'

export async function shardJob(job: {
  inputs: ShardInputs
  settings: Settings
  artifacts: () => Promise<ArtifactDoor>
  workDir: string
  runner: ProcessRunner
}): Promise<void> {
  await Promise.resolve(job)
  throw new Error("Role 'shard' is not available in this build yet.")
}
