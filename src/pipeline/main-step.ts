// The main step in order, whatever the role: decide (the role among the
// settings), the role's prepare, execute and finish (roles.ts), and the
// step's end. Each stage's value is built once and handed on; none is
// written to afterwards.
import * as core from '@actions/core'
import type { ProcessRunner } from '../core/process.js'
import { createProcessRunner } from '../process/process.js'
import { gateFailure } from '../review/review.js'
import { decide } from './decide.js'
import { runRole } from './roles.js'

export async function runMainStep(
  runner: ProcessRunner = createProcessRunner()
): Promise<void> {
  const decided = await decide()
  if (!decided) return
  const ending = await runRole(decided, runner)
  if (!ending) return
  if (ending.failure) core.setFailed(ending.failure)
  // The gate: only now, with the report out, the review posted and the outputs set.
  const gate = gateFailure(ending.review, decided.settings)
  if (gate) core.setFailed(gate)
}
