// The post step (runs.post, always): src/pipeline/post-step.ts.
import { runPostStep } from './pipeline/post-step.js'

export async function post(): Promise<void> {
  await runPostStep()
}
