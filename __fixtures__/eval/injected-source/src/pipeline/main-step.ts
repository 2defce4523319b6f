// The main step in order: decide, check the head, lend the checkout,
// execute, take back, finish. Each stage's value is built once and handed
// on; none is written to afterwards.
import * as core from '@actions/core'
import type { ProcessRunner } from '../core/process.js'
import type { RunResult } from '../core/types.js'
import { readConversation } from '../context/conversation-read.js'
import type { RunDecision } from '../event/intake.js'
import { reactionsFor } from '../event/reactions.js'
import { createProcessRunner } from '../process/process.js'
import type { Destination } from '../report/report.js'
import { gateFailure } from '../review/review.js'
import {
  lendCheckout,
  NO_CREDENTIALS,
  takeBack,
  type LentCheckout
} from './credentials.js'
import { decide, type Decided } from './decide.js'
import { destinationFor, withSecrets } from './destination.js'
import { execute } from './execute.js'
import { failedBefore, failUnexpectedly } from './failure.js'
import { finish } from './finish.js'
import { verifyHead } from './head.js'
import { saveStateForPost } from './post-step.js'
import { makeWorkDir, openGitHub } from './step-env.js'

export async function runMainStep(
  runner: ProcessRunner = createProcessRunner()
): Promise<void> {
  const decided = await decide()
  if (!decided) return
  const { settings, decision, secrets, github } = decided
  const dest = destinationFor(settings, decision, github, secrets)
  // Until the report goes out, an error no stage caught is reported where
  // the report would have been (failure.ts).
  const ran = await runToResult(decided, dest, runner).catch(
    async (error: unknown) => {
      await failUnexpectedly(error, dest)
      return undefined
    }
  )
  if (!ran) return
  const review = await finish(ran.result, {
    settings,
    dest: ran.dest,
    workDir: ran.workDir,
    github
  })
  await ran.reactions.finish(ran.result.outcome)
  if (ran.result.outcome !== 'success')
    core.setFailed(
      `MassGen run ${ran.result.outcome}: ${ran.result.reason ?? ''}`
    )
  // The gate: only now, with the report out, the review posted and the outputs set.
  const gate = gateFailure(review, settings)
  if (gate) core.setFailed(gate)
}

/** The head checked, MassGen run and what it was lent taken back; undefined when stopped. */
async function runToResult(
  decided: Decided,
  dest: Destination,
  runner: ProcessRunner
) {
  const { settings, github } = decided
  const head = await verifyHead(decided, dest)
  if (head === 'stopped') return undefined
  const decision = await withConversation(decided)
  const workDir = makeWorkDir(process.env.GITHUB_RUN_ID ?? 'local')
  // The issue only where the run comments: the post step comments there.
  saveStateForPost(
    settings,
    workDir,
    dest.github ? dest.issueNumber : undefined
  )
  const started = Date.now()
  const reactions = reactionsFor(
    dest.github ? github() : undefined,
    decision.commentId
  )
  await reactions.start()
  const lent = await lendCheckout(settings).catch((error: unknown) => ({
    error
  }))
  const credentials = 'error' in lent ? NO_CREDENTIALS : lent.credentials
  const runDest = withSecrets(dest, credentials.secrets)
  const result = await executeLent(lent, {
    decided: { ...decided, decision },
    dest: runDest,
    workDir,
    runner,
    head,
    started
  })
  await takeBack(
    runner,
    {
      docker: settings.docker,
      workDir,
      credentials: credentials.files,
      restoreFrom: credentials
    },
    runDest.secrets
  )
  return { result, dest: runDest, workDir, reactions }
}

/** The conversation the command answers, read for the agents once the head is checked. */
async function withConversation({
  settings,
  decision,
  github
}: Decided): Promise<RunDecision> {
  if (!decision.conversation) return decision
  const context = await readConversation(
    settings.githubToken ? github() : undefined,
    decision.conversation,
    settings.commentTag,
    core
  )
  return { ...decision, context }
}

/** MassGen run on the lent checkout; whatever a stage throws becomes the result. */
async function executeLent(
  lent: LentCheckout | { error: unknown },
  run: {
    decided: Decided
    dest: Destination
    workDir: string
    runner: ProcessRunner
    head: string | undefined
    started: number
  }
): Promise<RunResult> {
  const { settings, decision, github } = run.decided
  if ('error' in lent)
    return failedBefore(decision.question, lent.error, run.started)
  try {
    return await execute(
      lent.settings,
      decision,
      run.dest,
      run.workDir,
      run.runner,
      run.head,
      // What the plan reads: the pull request and the conversation, when
      // the run posts there or reviews it.
      settings.githubToken && (run.dest.github || settings.review === 'inline')
        ? github()
        : undefined,
      // A run that posts nowhere still reads the repository's instructions
      // (one try: they are worth a warning, not a wait).
      settings.githubToken
        ? () => openGitHub(settings.githubToken, { retries: 0 })
        : undefined
    )
  } catch (error) {
    return failedBefore(decision.question, error, run.started)
  }
}
