// The main step (runs.main): the pipeline in src/pipeline/, in order, for
// every role.
import type { ProcessRunner } from './core/process.js'
import { runMainStep } from './pipeline/main-step.js'
import { createProcessRunner } from './process/process.js'

export async function run(
  runner: ProcessRunner = createProcessRunner()
): Promise<void> {
  await runMainStep(runner)
}
