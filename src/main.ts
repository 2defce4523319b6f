// The main step (runs.main): a matrix review's role, else the pipeline in
// src/pipeline/, in order.
import type { ProcessRunner } from './core/process.js'
import { runMainStep } from './pipeline/main-step.js'
import { createProcessRunner } from './process/process.js'
import { runRole } from './shards/roles.js'

export async function run(
  runner: ProcessRunner = createProcessRunner()
): Promise<void> {
  // A matrix review's roles (src/shards/); role 'run' goes on below.
  if (await runRole(runner)) return
  await runMainStep(runner)
}
