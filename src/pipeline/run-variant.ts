// Role 'run', one runner's review or answer: its prepare checks the head,
// reads the conversation and lends the checkout; its execute runs MassGen on
// it and takes back what it lent; its finish reports (finish.ts).
import * as core from '@actions/core'
import type { ProcessRunner } from '../core/process.js'
import type { RunResult } from '../core/types.js'
import { readConversation } from '../context/conversation-read.js'
import type { RunDecision } from '../event/intake.js'
import { reactionsFor } from '../event/reactions.js'
import type { Destination } from '../report/report.js'
import {
  lendCheckout,
  NO_CREDENTIALS,
  takeBack,
  type LentCheckout
} from './credentials.js'
import type { Decided } from './decide.js'
import { destinationFor, withSecrets } from './destination.js'
import { execute } from './execute.js'
import { failedBefore, failUnexpectedly } from './failure.js'
import { finish } from './finish.js'
import { verifyHead } from './head.js'
import { saveStateForPost } from './post-step.js'
import { makeWorkDir, openGitHub } from './step-env.js'
import type { Variant } from './variant.js'

/** The run's plan: the head checked, the conversation read, the checkout lent. */
interface RunPrepared {
  readonly decided: Decided
  readonly dest: Destination
  readonly workDir: string
  readonly head: string | undefined
  readonly started: number
  readonly reactions: ReturnType<typeof reactionsFor>
  readonly lent: LentCheckout | { error: unknown }
}

interface RunRan {
  readonly result: RunResult
  /** The destination with the lent credentials among its secrets. */
  readonly dest: Destination
}

export function runVariant(decided: Decided): Variant<RunPrepared, RunRan> {
  const { settings, decision, secrets, github } = decided
  const dest = destinationFor(settings, decision, github, secrets)
  return {
    prepare: () => prepareRun(decided, dest),
    execute: executeRun,
    finish: async ({ decided, workDir, reactions }, ran) => {
      const review = await finish(ran.result, {
        settings,
        dest: ran.dest,
        workDir,
        github: decided.github
      })
      await reactions.finish(ran.result.outcome)
      const { outcome, reason } = ran.result
      return {
        failure:
          outcome === 'success'
            ? undefined
            : `MassGen run ${outcome}: ${reason ?? ''}`,
        review
      }
    },
    // Until the report goes out, an error no stage caught is reported where
    // the report would have been (failure.ts).
    failed: (error) => failUnexpectedly(error, dest)
  }
}

/** Undefined when the head check stopped the run (said already). */
async function prepareRun(
  decided: Decided,
  dest: Destination
): Promise<RunPrepared | undefined> {
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
  return {
    decided: { ...decided, decision },
    dest,
    workDir,
    head,
    started,
    reactions,
    lent
  }
}

/** MassGen run on the lent checkout, and what it was lent taken back. */
async function executeRun(
  prepared: RunPrepared,
  runner: ProcessRunner
): Promise<RunRan> {
  const { lent, workDir } = prepared
  const credentials = 'error' in lent ? NO_CREDENTIALS : lent.credentials
  const dest = withSecrets(prepared.dest, credentials.secrets)
  const result = await executeLent({ ...prepared, dest }, runner)
  await takeBack(
    runner,
    {
      docker: prepared.decided.settings.docker,
      workDir,
      credentials: credentials.files,
      restoreFrom: credentials
    },
    dest.secrets
  )
  return { result, dest }
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
  run: RunPrepared,
  runner: ProcessRunner
): Promise<RunResult> {
  const { settings, decision, github } = run.decided
  if ('error' in run.lent)
    return failedBefore(decision.question, run.lent.error, run.started)
  try {
    return await execute(
      run.lent.settings,
      decision,
      run.dest,
      run.workDir,
      runner,
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
