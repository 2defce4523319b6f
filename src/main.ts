// The pipeline: inputs + event -> plan -> prepare -> run -> results -> report.
import * as core from '@actions/core'
import { context } from '@actions/github'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Defaults, Inputs, Outputs } from './core/constants.js'
import { saveStepState } from './core/step-state.js'
import { uploadLogs } from './report/artifact.js'
import { revokeContainerWrite } from './prepare/container-write-access.js'
import { removeLeftoverContainers } from './prepare/docker.js'
import { execute } from './pipeline/execute.js'
import { createGitHub, type GitHubApi } from './github/api.js'
import { runUrl } from './github/run-url.js'
import {
  intake,
  IntakeError,
  type Intake,
  type RunDecision,
  type RunIntake
} from './event/intake.js'
import { MissingKeysError, ModelsError } from './inputs/models.js'
import { chooseAgents } from './plan/plan.js'
import { createProcessRunner } from './process/process.js'
import { type ProcessRunner } from './core/process.js'
import { localModeRefusal } from './event/local-mode.js'
import { reactionsFor } from './event/reactions.js'
import { renderReport, renderSkipped } from './report/render.js'
import { SCRUB_LIMITS, scrubSecrets, type ScrubResult } from './safety/scrub.js'
import {
  credentialState,
  restoreGitCredentials,
  takeGitCredentials,
  type TakenCredentials
} from './safety/git-credentials.js'
import { ContextPathError, confineToWorkspace } from './safety/context-path.js'
import { redactSecrets } from './safety/redact.js'
import {
  deliverReport,
  reportContext,
  postComment,
  postReply,
  writeSummary,
  type Destination
} from './report/report.js'
import { checkHead, type HeadVerdict } from './event/head-check.js'
import { checkCheckout } from './event/checkout-check.js'
import { readCheckedOutCommit } from './safety/checked-out-commit.js'
import {
  flagOrDefault,
  InputError,
  readKeys,
  readSettings,
  type InputSource
} from './inputs/settings.js'
import { readTrigger } from './event/trigger.js'
import { parseCommand } from './event/command.js'
import { setupSourceFor, type SetupSource } from './event/setup-source.js'
import { withBaseSetup } from './context/base-setup.js'
import type { RunResult, Settings, Trigger } from './core/types.js'
import type { ReviewReport } from './core/review.js'
import { readConversation } from './context/conversation-read.js'
import { gateFailure, reviewRun, setReviewOutputs } from './review/review.js'
import { errorText } from './core/text.js'
import { publishVerdict } from './review/publish.js'
import { runRole } from './shards/roles.js'

/** The artifact client retries for ~30 s on errors and minutes on a stall. */
const ARTIFACT_UPLOAD_LIMIT_SECONDS = 60

function withinSeconds<T>(
  seconds: number,
  work: Promise<T>
): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), seconds * 1000)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

export async function run(
  runner: ProcessRunner = createProcessRunner()
): Promise<void> {
  // A matrix review's roles (src/shards/); role 'run' goes on below.
  if (await runRole(runner)) return
  const trigger = readTrigger(
    context.eventName,
    context.payload,
    process.env.GITHUB_ACTOR ?? '',
    process.env.GITHUB_REPOSITORY ?? ''
  )
  const setupSource = setupSourceFor(trigger, context.payload)
  const inputs = readInputs(setupSource.from !== 'workspace')
  if (!inputs) return
  let github: GitHubApi | undefined
  const settings = await loadBaseSetup(
    inputs.settings,
    { trigger, setupSource },
    () => (github ??= openGitHub(inputs.settings))
  )
  if (!settings) return
  const { secrets } = inputs
  const gh = () => (github ??= openGitHub(settings))
  const decision = await decide(settings, trigger, gh, secrets)
  if (!decision) return
  // Only a quiet skip leaves setup files unread; never run without them.
  if (settings.baseSetup.length > 0) {
    failBeforeRun(
      new InputError('The setup files were not read; nothing was run.')
    )
    return
  }
  const dest = destinationFor(settings, decision, gh, secrets)
  const head = await verifyHead(settings, trigger, decision, dest, gh)
  if (head === 'stopped') return
  const decided: RunDecision = decision.conversation
    ? {
        ...decision,
        context: await readConversation(
          settings.githubToken ? gh() : undefined,
          decision.conversation,
          settings.commentTag,
          core
        )
      }
    : decision
  const workDir = makeWorkDir()
  saveStateForPost(settings, dest, workDir)
  const started = Date.now()
  const reactions = reactionsFor(
    dest.github ? gh() : undefined,
    decided.commentId
  )
  await reactions.start()

  let result: RunResult
  let credentials: TakenCredentials = NO_CREDENTIALS
  // The destination again once the checkout's credentials are secrets too.
  let runDest = dest
  try {
    // Before anything reads, serves, binds, mounts or opens it to agents.
    const confined: Settings = {
      ...settings,
      contextPath: confineToWorkspace(settings.workspace, settings.contextPath)
    }
    credentials = await takeCredentials(confined.contextPath)
    runDest = { ...dest, secrets: [...secrets, ...credentials.secrets] }
    result = await execute(
      confined,
      decided,
      runDest,
      workDir,
      runner,
      head,
      // What the plan reads: the pull request and the conversation, when
      // the run posts there or reviews it.
      settings.githubToken && (dest.github || settings.review === 'inline')
        ? gh()
        : undefined,
      // A run that posts nowhere still reads the repository's instructions
      // (one try: they are worth a warning, not a wait).
      settings.githubToken
        ? () => openGitHub(settings, { retries: 0 })
        : undefined
    )
  } catch (error) {
    result = failedBefore(decided.question, error, started)
  }
  await cleanUpRun(settings, runner, workDir, credentials, runDest.secrets)
  const review = await finish(result, { settings, dest: runDest, workDir, gh })
  await reactions.finish(result.outcome)
  if (result.outcome !== 'success')
    core.setFailed(`MassGen run ${result.outcome}: ${result.reason ?? ''}`)
  // The gate: only now, with the report out, the review posted and the outputs set.
  const gate = gateFailure(review, settings)
  if (gate) core.setFailed(gate)
}

/**
 * The setup files from the base commit, on events that carry someone
 * else's code (base-setup.ts); undefined when they cannot be used.
 */
async function loadBaseSetup(
  settings: Settings,
  source: { trigger: Trigger; setupSource: SetupSource },
  gh: () => GitHubApi
): Promise<Settings | undefined> {
  // A comment that is not a command is skipped quietly by the intake, with
  // nothing run: it costs no API call and cannot fail the job here.
  if (skippedQuietly(source.trigger, settings)) return settings
  try {
    return await withBaseSetup(
      settings,
      source.setupSource,
      settings.githubToken ? gh : undefined
    )
  } catch (error) {
    failBeforeRun(error)
    return undefined
  }
}

function skippedQuietly(trigger: Trigger, settings: Settings): boolean {
  if (trigger.kind === 'ignored') return true
  if (trigger.kind !== 'comment' && trigger.kind !== 'review_comment')
    return false
  return parseCommand(trigger.body, settings.trigger).kind === 'not-command'
}

/** The inputs, read and checked; keys masked before anything can print them. */
function readInputs(
  setupFromBase: boolean
): { settings: Settings; secrets: string[] } | undefined {
  const source: InputSource = {
    getInput: (name) => core.getInput(name),
    env: process.env,
    workspace: process.env.GITHUB_WORKSPACE || process.cwd(),
    setupFromBase
  }
  for (const key of Object.values(readKeys(source)))
    if (key) core.setSecret(key)
  let settings: Settings
  try {
    settings = readSettings(source)
  } catch (error) {
    failBeforeRun(error)
    return undefined
  }
  if (settings.githubToken) core.setSecret(settings.githubToken)
  const secrets = [
    ...Object.values(settings.keys),
    settings.githubToken
  ].filter((s): s is string => Boolean(s))
  return { settings, secrets }
}

/**
 * Whether this event runs at all: the trigger and permission gate (intake),
 * local mode's refusal of untrusted events, and the models against the keys,
 * all before anything costly. Undefined when it was skipped or refused.
 */
async function decide(
  settings: Settings,
  trigger: Trigger,
  gh: () => GitHubApi,
  secrets: readonly string[]
): Promise<RunDecision | undefined> {
  // The agents are chosen once, here; the intake and the plan reuse the choice.
  const agents = chooseAgents(settings)
  let decision: Intake
  try {
    decision = await intake(settings, trigger, gh, agents)
  } catch (error) {
    failBeforeRun(error)
    return undefined
  }
  if (decision.action === 'skip') {
    await skip(decision.reason, decision.quiet, settings)
    return undefined
  }
  if (decision.action === 'fail') {
    await failVisibly(
      decision.reason,
      destinationFor(settings, decision, gh, secrets),
      'failed'
    )
    return undefined
  }
  const refusal = localModeRefusal(settings, context.eventName, trigger)
  if (refusal) {
    await refuse(refusal, settings)
    return undefined
  }
  if ('error' in agents && !(agents.error instanceof MissingKeysError)) {
    failBeforeRun(agents.error)
    return undefined
  }
  if ('error' in agents) {
    // Past the gate, a missing key: the people who may run it see why it did not.
    await failVisibly(
      failureText(agents.error),
      destinationFor(settings, decision, gh, secrets),
      'config-error'
    )
    return undefined
  }
  return { ...decision, agents: agents.selection }
}

/** Where the report goes: the sticky comment (or a thread reply) and the summary. */
function destinationFor(
  settings: Settings,
  decision: Pick<RunIntake, 'issueNumber' | 'replyTo'>,
  gh: () => GitHubApi,
  secrets: readonly string[]
): Destination {
  if (decision.issueNumber && settings.comment && !settings.githubToken) {
    core.warning(
      `Input '${Inputs.GithubToken}' is empty, so no comment can be posted on #${decision.issueNumber}; ` +
        'the report is in the job summary only.'
    )
  }
  return {
    github:
      (decision.issueNumber || decision.replyTo) &&
      settings.comment &&
      settings.githubToken
        ? gh()
        : undefined,
    issueNumber: decision.issueNumber,
    reply: decision.replyTo,
    settings,
    runUrl: runUrl(process.env),
    secrets
  }
}

/**
 * The head came from the API: the context must be that commit.
 * 'stopped' when the head moved (reported) or could not be checked.
 */
async function verifyHead(
  settings: Settings,
  trigger: Trigger,
  decision: RunIntake,
  dest: Destination,
  gh: () => GitHubApi
  // The literal names the sentinel for readers; to the types it is a string.
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents
): Promise<string | undefined | 'stopped'> {
  const head = await resolveHead(settings, trigger, decision, gh).catch(
    (error: unknown) => error as Error
  )
  if (head instanceof Error) {
    await failVisibly(
      "Could not check the pull request's head commit, so nothing was run: " +
        head.message,
      dest,
      'failed'
    )
    return 'stopped'
  }
  if (head?.ok === false) {
    await refuseMovedHead(head.reason, settings, dest)
    return 'stopped'
  }
  if (head && decision.pullRequest) {
    const checkout = checkCheckout({
      checkedOut: readCheckedOutCommit(
        settings.workspace,
        settings.contextPath
      ),
      headSha: head.sha,
      mergeSha: head.mergeSha,
      eventMergeSha:
        trigger.kind === 'pull_request' && trigger.eventName === 'pull_request'
          ? process.env.GITHUB_SHA
          : undefined,
      trigger: checkoutTrigger(trigger),
      pullRequest: decision.pullRequest
    })
    if (!checkout.ok && settings.checkoutCheck === 'stop') {
      await failVisibly(checkout.reason, dest, 'config-error')
      return 'stopped'
    }
    if (!checkout.ok) core.warning(checkout.reason)
    else if (checkout.note) core.info(checkout.note)
  }
  return head?.sha
}

function checkoutTrigger(
  trigger: Trigger
): Parameters<typeof checkCheckout>[0]['trigger'] {
  if (trigger.kind === 'comment' || trigger.kind === 'review_comment')
    return 'comment'
  if (trigger.kind !== 'pull_request') return 'other'
  return trigger.eventName === 'pull_request_target'
    ? 'pull_request_target'
    : 'pull_request'
}

const NO_CREDENTIALS: TakenCredentials = {
  files: [],
  secrets: [],
  originals: new Map()
}

/** The checkout's persisted token, out of the agents' reach for the run (masked). */
async function takeCredentials(contextPath: string): Promise<TakenCredentials> {
  const credentials = await takeGitCredentials(
    contextPath,
    core,
    process.env.RUNNER_TEMP
  )
  for (const value of credentials.secrets) core.setSecret(value)
  saveStepState('gitCredentials', credentialState(credentials))
  return credentials
}

/** MassGen and its containers are gone: take back what the run was lent. */
async function cleanUpRun(
  settings: Settings,
  runner: ProcessRunner,
  workDir: string,
  credentials: TakenCredentials,
  secrets: readonly string[]
): Promise<void> {
  if (settings.docker) {
    await removeLeftoverContainers(runner, workDir, core)
    // Only once no container of the run is left to race the revoke, and
    // before the credentials go back into the checkout.
    await revokeContainerWrite(runner, workDir, core)
  }
  // No agent reads the config any more.
  if (credentials.files.length > 0) {
    await restoreGitCredentials(credentials.files, core, credentials).catch(
      (error: unknown) =>
        core.warning(
          `Could not put the checkout's credentials back: ${redactSecrets(String(error), secrets)}`
        )
    )
    saveStepState('gitCredentials', '')
  }
}

/**
 * Logs artifact, review, report and outputs, then no key left on disk.
 * Returns the review, for the gate.
 */
async function finish(
  result: RunResult,
  run: {
    settings: Settings
    dest: Destination
    workDir: string
    gh: () => GitHubApi
  }
): Promise<ReviewReport | undefined> {
  const { settings, workDir } = run
  const secrets = run.dest.secrets
  const artifactUrl =
    result.logDir && settings.uploadLogs
      ? await attachLogs(result.logDir, result, settings, run.dest)
      : undefined
  const dest: Destination = artifactUrl
    ? { ...run.dest, artifactUrl }
    : run.dest
  // Before the report, so the sticky comment can link the review.
  const review = await reviewRun(
    result,
    settings,
    settings.githubToken ? run.gh() : undefined,
    secrets,
    dest.runUrl
  ).catch((error: unknown) => {
    core.warning(
      `The review step failed: ${redactSecrets(String(error), secrets)}`
    )
    return undefined
  })
  await deliverReport(withReportTime(result), dest, workDir, review)
  await setReviewOutputs(review, workDir, secrets)
  await publishVerdict(result, review, {
    settings,
    workDir,
    secrets,
    runUrl: dest.runUrl,
    github: settings.githubToken ? run.gh() : undefined
  })
  reportScrub(await scrubSecrets(workDir, secrets))
  return review
}

/** The report's share of the time: MassGen's exit to now (report/timings.ts). */
function withReportTime(result: RunResult): RunResult {
  const ended = result.timings?.massgenEndedAt
  if (ended === undefined) return result
  const report = Math.round(performance.now() - ended) / 1000
  return { ...result, timings: { ...result.timings, report } }
}

/** What the end-of-run scrub did that a reader should know. */
function reportScrub(scrub: ScrubResult): void {
  if (scrub.scrubbed.length > 0)
    core.warning(
      `${scrub.scrubbed.length} file(s) of the run held an API key (an agent printed it); ` +
        'they were redacted on disk, and every posted text was redacted too.'
    )
  if (scrub.removed.length > 0)
    core.warning(
      `${scrub.removed.length} file(s) of the run were over ${SCRUB_LIMITS.fileBytes} bytes, too ` +
        'large to check for keys, and were removed.'
    )
  if (scrub.stopped)
    core.warning(
      `The key scrub of the run's folder stopped at its ${scrub.stopped === 'time' ? `${SCRUB_LIMITS.seconds}-second` : `${SCRUB_LIMITS.totalBytes}-byte`} ` +
        `limit after ${scrub.scanned} file(s); files after that were not checked (RUNNER_TEMP is removed when the job ends).`
    )
}

/**
 * Uploads MassGen's logs before the report, so both the summary and the
 * comment can link them; bounded, so a stalled artifact service cannot hold
 * the report back.
 */
async function attachLogs(
  logDir: string,
  result: RunResult,
  settings: Settings,
  dest: Destination
): Promise<string | undefined> {
  const logs = await withinSeconds(
    ARTIFACT_UPLOAD_LIMIT_SECONDS,
    uploadLogs(logDir, {
      // Unique per job and re-run: matrix jobs may share a comment tag.
      name: `massgen-logs-${settings.commentTag}-${path.basename(logDir)}`,
      log: core,
      secrets: dest.secrets,
      winningAnswer: result.winnerAnswer,
      scope: settings.uploadLogsScope
    })
  )
  if (logs !== 'late') return logs?.url
  core.warning(
    `The logs artifact upload did not finish within ${ARTIFACT_UPLOAD_LIMIT_SECONDS} s; ` +
      'the report goes out without its link.'
  )
  return undefined
}
/**
 * The head commit the run reviews, read from the API and checked against
 * the comment or the pull_request event, and `expected-head-sha`
 * (head-check.ts); set as the `head-sha` output. Undefined when the run is
 * not about a pull request.
 */
async function resolveHead(
  settings: Settings,
  trigger: Trigger,
  decision: RunIntake,
  gh: () => GitHubApi
): Promise<HeadVerdict | undefined> {
  let verdict: HeadVerdict | undefined
  if (
    (trigger.kind === 'comment' || trigger.kind === 'review_comment') &&
    decision.pullRequest
  ) {
    verdict = checkHead({
      head: await gh().getPullHead(decision.pullRequest),
      commentCreatedAt: trigger.createdAt,
      expectedSha: settings.expectedHeadSha
    })
  } else if (trigger.kind === 'pull_request') {
    // Every action: a push can land between any event and the job's start.
    const tip = await gh().getPullTip(trigger.number)
    verdict = checkHead({
      head: { ...tip, committedAt: undefined, forcePushedAt: [] },
      commentCreatedAt: undefined,
      expectedSha: settings.expectedHeadSha,
      event: { sha: trigger.headSha, labeled: trigger.labeled !== undefined }
    })
  }
  if (verdict) core.setOutput(Outputs.HeadSha, verdict.sha)
  return verdict
}

/** The head moved after the command: skipped, and said where it is seen. */
async function refuseMovedHead(
  reason: string,
  settings: Settings,
  dest: Destination
): Promise<void> {
  await skip(reason, false, settings)
  await (dest.reply ? postReply : postComment)(
    dest,
    renderSkipped(reason, reportContext(dest, 'comment'))
  )
}

function failedBefore(
  question: string,
  error: unknown,
  started: number
): RunResult {
  // Said once, by the step's failure (finish): a second annotation would repeat it.
  const message = errorText(error)
  return {
    outcome:
      error instanceof ModelsError || error instanceof ContextPathError
        ? 'config-error'
        : 'failed',
    reason: message,
    question,
    exitCode: null,
    agents: [],
    votes: {},
    elapsedSeconds: Math.round((Date.now() - started) / 100) / 10
  }
}

function openGitHub(
  settings: Settings,
  timing?: { retries: number }
): GitHubApi {
  const [owner = '', repo = ''] = (process.env.GITHUB_REPOSITORY ?? '/').split(
    '/'
  )
  return createGitHub({
    token: settings.githubToken,
    owner,
    repo,
    log: core,
    ...(timing ? { timing } : {})
  })
}

function makeWorkDir(): string {
  const root = process.env.RUNNER_TEMP || os.tmpdir()
  fs.mkdirSync(root, { recursive: true })
  return fs.mkdtempSync(
    path.join(root, `massgen-${process.env.GITHUB_RUN_ID ?? 'local'}-`)
  )
}

function saveStateForPost(
  settings: Settings,
  dest: Destination,
  workDir: string
) {
  saveStepState('started', true)
  saveStepState('workDir', workDir)
  saveStepState('commentTag', settings.commentTag)
  saveStepState('docker', settings.docker)
  if (dest.github && dest.issueNumber)
    saveStepState('issueNumber', dest.issueNumber)
}

/** Quiet skips (a comment not meant for us) leave no trace but a log line. */
async function skip(
  reason: string,
  quiet: boolean,
  settings: Settings
): Promise<void> {
  core.setOutput(Outputs.Status, 'skipped')
  saveStepState('reported', true)
  if (quiet) return core.info(`Nothing to do: ${reason}`)
  core.notice(`MassGen run skipped: ${reason}`)
  const dest: Destination = {
    github: undefined,
    issueNumber: undefined,
    settings,
    runUrl: runUrl(process.env),
    secrets: []
  }
  await writeSummary(
    dest,
    renderSkipped(reason, reportContext(dest, 'summary'))
  )
}

/**
 * A check the run depends on could not be made (the permission API, the
 * pull request's head): nothing ran, and the step fails so that the pull
 * request does not silently go without its review. The reason is in the
 * summary and, where the run would have reported, a comment.
 */
async function failVisibly(
  reason: string,
  dest: Destination,
  outcome: 'failed' | 'config-error'
): Promise<void> {
  const shown = redactSecrets(reason, dest.secrets)
  core.setOutput(Outputs.Status, outcome)
  saveStepState('reported', true)
  const report = (target: 'comment' | 'summary') =>
    renderReport(
      {
        outcome,
        reason: shown,
        question: '',
        exitCode: null,
        agents: [],
        votes: {}
      },
      reportContext(dest, target)
    )
  await writeSummary(dest, report('summary'))
  await (dest.reply ? postReply : postComment)(dest, report('comment'))
  core.setFailed(shown)
}

/** A run the workflow's settings forbid here: said in the summary, and failed. */
async function refuse(reason: string, settings: Settings): Promise<void> {
  await skip(reason, false, settings)
  core.setOutput(Outputs.Status, 'config-error')
  core.setFailed(reason)
}

function failureText(error: unknown): string {
  return error instanceof InputError ||
    error instanceof IntakeError ||
    error instanceof ModelsError
    ? error.message
    : `Unexpected error: ${errorText(error)}`
}

/**
 * An error no stage caught (index.ts): the step fails with it, and the job
 * summary says so, as every outcome after valid inputs does.
 */
export async function failUnexpectedly(error: unknown): Promise<void> {
  const source: InputSource = {
    getInput: (name) => core.getInput(name),
    env: process.env,
    workspace: ''
  }
  const token = core.getInput(Inputs.GithubToken)
  const secrets = [...Object.values(readKeys(source)), token].filter(
    (s): s is string => Boolean(s)
  )
  const reason = redactSecrets(`Unexpected error: ${errorText(error)}`, secrets)
  core.setOutput(Outputs.Status, 'failed')
  saveStepState('reported', true)
  const dest: Destination = {
    github: undefined,
    issueNumber: undefined,
    settings: {
      comment: false,
      jobSummary: flagOrDefault(core.getInput(Inputs.JobSummary), true),
      commentTag: core.getInput(Inputs.CommentTag) || Defaults.CommentTag
    },
    runUrl: runUrl(process.env),
    secrets
  }
  const failed: RunResult = {
    outcome: 'failed',
    reason,
    question: '',
    exitCode: null,
    agents: [],
    votes: {}
  }
  await writeSummary(dest, renderReport(failed, reportContext(dest, 'summary')))
  core.setFailed(reason)
}

function failBeforeRun(error: unknown): void {
  const message = failureText(error)
  core.setOutput(Outputs.Status, 'config-error')
  saveStepState('reported', true)
  core.setFailed(message)
}
