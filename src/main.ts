// The pipeline: inputs + event -> plan -> prepare -> run -> results -> report.
import * as core from '@actions/core'
import { context } from '@actions/github'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { stringify } from 'yaml'
import { configRelativePath } from './config.js'
import { Outputs, State } from './constants.js'
import { prepareDocker, removeLeftoverContainers } from './docker.js'
import { createGitHub, runUrl, type GitHubDoor, type ReactionContent } from './github.js'
import { prepareMassgen } from './install.js'
import { intake, IntakeError, type Intake } from './intake.js'
import { discoverLogDir, readRunFiles } from './log-files.js'
import { ModelsError, selectAgents } from './models.js'
import { planRun, withMassgenOnPath } from './plan.js'
import { prContextNote, writePrContext } from './pr-context.js'
import { createProcessDoor, type ProcessDoor } from './process.js'
import { ProgressTracker, toSnapshot } from './progress.js'
import { renderProgress, renderSkipped } from './render.js'
import { commentBudget, deliverReport, postComment, writeSummary, type Destination } from './report.js'
import { judgeRun } from './results.js'
import { runMassgen } from './run-massgen.js'
import { InputError, readKeys, readSettings, type InputSource } from './settings.js'
import { readTrigger } from './trigger.js'
import type { RunResult, Settings } from './types.js'

export async function run(door: ProcessDoor = createProcessDoor()): Promise<void> {
  const source: InputSource = {
    getInput: (name) => core.getInput(name),
    env: process.env,
    workspace: process.env.GITHUB_WORKSPACE || process.cwd()
  }
  // Masked before anything can print them.
  for (const key of Object.values(readKeys(source))) if (key) core.setSecret(key)
  let settings: Settings
  try {
    settings = readSettings(source)
  } catch (error) {
    return failBeforeRun(error)
  }
  if (settings.githubToken) core.setSecret(settings.githubToken)
  const secrets = [...Object.values(settings.keys), settings.githubToken].filter(
    (s): s is string => Boolean(s)
  )
  let github: GitHubDoor | undefined
  const gh = () => (github ??= openGitHub(settings))
  let decision: Intake
  try {
    decision = await intake(settings, readTrigger(context.eventName, context.payload), gh)
  } catch (error) {
    return failBeforeRun(error)
  }
  if (decision.action === 'skip') return skip(decision.reason, decision.quiet, settings)
  try {
    // Pure check of models against keys, before anything costly happens.
    selectAgents(settings.models, settings.keys, settings)
  } catch (error) {
    if (error instanceof ModelsError && !keysPresent(settings) && forkOrBot()) {
      return skip(forkSkipReason(), false, settings)
    }
    return failBeforeRun(error)
  }

  const dest: Destination = {
    github: decision.issueNumber && settings.comment && settings.githubToken ? gh() : undefined,
    issueNumber: decision.issueNumber,
    settings,
    runUrl: runUrl(process.env),
    secrets
  }
  if (decision.issueNumber && settings.comment && !settings.githubToken) {
    core.warning(
      `Input 'github-token' is empty, so no comment can be posted on #${decision.issueNumber}; ` +
        'the report is in the job summary only.'
    )
  }
  const workDir = makeWorkDir()
  saveStateForPost(settings, dest, workDir, decision)
  const started = Date.now()
  const reactions = reactionsFor(dest.github, decision.commentId)
  await reactions.start()

  let result: RunResult
  try {
    result = await execute(settings, decision, dest, workDir, door)
  } catch (error) {
    result = failedBefore(decision.question, error, started)
  }
  if (settings.docker) await removeLeftoverContainers(door, workDir, core)
  await deliverReport(result, dest, workDir)
  await reactions.finish(result.outcome)
  if (result.outcome !== 'success') core.setFailed(`MassGen run ${result.outcome}: ${result.reason ?? ''}`)
}

async function execute(
  settings: Settings,
  decision: Extract<Intake, { action: 'run' }>,
  dest: Destination,
  workDir: string,
  door: ProcessDoor
): Promise<RunResult> {
  let question = decision.question
  const extraContext: string[] = []
  if (decision.pullRequest && settings.prContext && dest.github) {
    const pr = await dest.github.getPullRequestContext(decision.pullRequest, settings.prDiffMaxBytes)
    const dir = path.join(workDir, 'pr-context')
    writePrContext(dir, pr)
    extraContext.push(dir)
    question += prContextNote(dir, pr)
  }
  const configFile = path.join(workDir, configRelativePath(new Date()))
  const plan = planRun({ settings, question, configFile, extraContextPaths: extraContext, baseEnv: process.env })
  plan.warnings.forEach((w) => core.warning(w))
  fs.mkdirSync(path.dirname(configFile), { recursive: true })
  fs.writeFileSync(configFile, stringify(plan.config), { mode: 0o600 })
  core.setOutput(Outputs.ConfigFile, configFile)
  core.info(`MassGen config: ${configFile} (${plan.agents.map((a) => `${a.id}=${a.backend}/${a.model}`).join(', ')})`)

  const publish = async (body: string) => void (await postComment(dest, body))
  await publish(renderProgress(toSnapshot({}, plan.agents, 0), progressCtx(dest)))
  const installation = await prepareMassgen(door, {
    version: settings.massgenVersion,
    command: settings.massgenCommand,
    docker: settings.docker,
    useCache: settings.cacheMassgen,
    toolCacheDir: process.env.RUNNER_TOOL_CACHE || path.join(os.homedir(), '.cache'),
    env: process.env,
    log: core
  })
  if (settings.docker) await prepareDocker(door, settings.dockerImage, core)

  const abort = new AbortController()
  const onSignal = () => abort.abort()
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal)
  const started = Date.now()
  const tracker = new ProgressTracker({
    minIntervalMs: 20_000,
    now: Date.now,
    log: (line) => core.info(line),
    publish: (snapshot) => publish(renderProgress(snapshot, progressCtx(dest)))
  })
  const logBase = path.join(workDir, '.massgen', 'massgen_logs')
  core.startGroup('MassGen output')
  const outcome = await runMassgen(door, {
    command: installation.command,
    args: [...installation.prefixArgs, ...plan.args],
    cwd: workDir,
    env: withMassgenOnPath(plan.env, installation.command),
    logBase,
    maxDurationSeconds: settings.maxDurationSeconds,
    abort: abort.signal,
    onStart: (pid) => core.saveState(State.MassgenPid, String(pid)),
    onLine: (line) => core.info(line),
    onStatus: (status) => tracker.update(toSnapshot(status, plan.agents, (Date.now() - started) / 1000))
  })
  core.endGroup()
  process.off('SIGINT', onSignal).off('SIGTERM', onSignal)
  await tracker.close()
  if (outcome.survivors) core.warning('Some MassGen processes outlived SIGKILL of their group')

  const logDir = outcome.hints.logDir ?? discoverLogDir(logBase)
  const files = logDir
    ? readRunFiles(logDir, plan.agents.map((a) => a.id), outcome.hints)
    : { statusUnreadable: false, answers: {}, votes: {}, answersTruncated: false }
  if (logDir) core.saveState(State.LogDir, logDir)
  return {
    ...judgeRun({
      question: decision.question,
      agents: plan.agents,
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      timedOut: outcome.timedOut,
      cancelled: outcome.cancelled,
      maxDurationSeconds: settings.maxDurationSeconds,
      logDir,
      files,
      configErrors: configErrorLines(outcome.stderrTail),
      wallSeconds: outcome.wallSeconds
    }),
    configFile
  }
}

/**
 * MassGen's validation messages: `❌ [location] message` lines with their
 * `💡 Suggestion` lines on stderr; the rest of stderr is warnings noise.
 */
export function configErrorLines(stderr: string[]): string[] {
  const marked = stderr.filter((line) => /❌|💡/.test(line)).map((line) => line.trim())
  if (marked.length > 0) return marked.slice(0, 60)
  return stderr
    .filter((line) => line.trim() && !/Warning|^\s+(from|with|import) |^It will be compatible/.test(line))
    .slice(-20)
}

function progressCtx(dest: Destination) {
  return { runUrl: dest.runUrl, tag: dest.settings.commentTag, maxChars: commentBudget(dest.settings.commentTag), secrets: dest.secrets }
}

function failedBefore(question: string, error: unknown, started: number): RunResult {
  const message = error instanceof Error ? error.message : String(error)
  core.error(message)
  return {
    outcome: error instanceof ModelsError ? 'config-error' : 'failed',
    reason: message,
    question,
    exitCode: null,
    agents: [],
    votes: {},
    elapsedSeconds: Math.round((Date.now() - started) / 100) / 10
  }
}

function reactionsFor(github: GitHubDoor | undefined, commentId: number | undefined) {
  let eyes: number | undefined
  const safely = async (what: () => Promise<void>) => {
    try {
      await what()
    } catch (error) {
      core.warning(`Could not update the reaction on the triggering comment: ${String(error)}`)
    }
  }
  const final: Record<string, ReactionContent> = { success: 'rocket', skipped: 'confused' }
  return {
    start: () => safely(async () => {
      if (github && commentId) eyes = await github.addReaction(commentId, 'eyes')
    }),
    finish: (outcome: string) => safely(async () => {
      if (!github || !commentId) return
      if (eyes) await github.removeReaction(commentId, eyes)
      await github.addReaction(commentId, final[outcome] ?? '-1')
    })
  }
}

function openGitHub(settings: Settings): GitHubDoor {
  const [owner = '', repo = ''] = (process.env.GITHUB_REPOSITORY ?? '/').split('/')
  return createGitHub({ token: settings.githubToken, owner, repo, log: core })
}

function makeWorkDir(): string {
  const root = process.env.RUNNER_TEMP || os.tmpdir()
  fs.mkdirSync(root, { recursive: true })
  return fs.mkdtempSync(path.join(root, `massgen-${process.env.GITHUB_RUN_ID ?? 'local'}-`))
}

function saveStateForPost(settings: Settings, dest: Destination, workDir: string, decision: Extract<Intake, { action: 'run' }>) {
  core.saveState(State.Started, 'true')
  core.saveState(State.WorkDir, workDir)
  core.saveState(State.CommentTag, settings.commentTag)
  core.saveState(State.Docker, String(settings.docker))
  if (dest.github && dest.issueNumber) core.saveState(State.IssueNumber, String(dest.issueNumber))
  if (decision.commentId) core.saveState(State.TriggerCommentId, String(decision.commentId))
}

function keysPresent(settings: Settings): boolean {
  return Object.keys(settings.keys).length > 0
}

/** Fork and Dependabot pull requests get no secrets from GitHub. */
function forkOrBot(): boolean {
  const pr = context.payload.pull_request
  if (!pr) return false
  const fork = pr.head?.repo?.full_name !== pr.base?.repo?.full_name
  const bot = pr.user?.type === 'Bot' || String(pr.user?.login ?? '').endsWith('[bot]')
  return fork || bot
}

function forkSkipReason(): string {
  return (
    'This pull request comes from a fork or a bot, and GitHub gives such runs no secrets, ' +
    'so no API key is available. Nothing was run. To review it, a maintainer can comment ' +
    "'/massgen <question>' on the pull request (comment runs have the secrets), or add the keys " +
    'to the Dependabot secrets for Dependabot pull requests.'
  )
}

/** Quiet skips (a comment not meant for us) leave no trace but a log line. */
async function skip(reason: string, quiet: boolean, settings: Settings): Promise<void> {
  core.setOutput(Outputs.Status, 'skipped')
  core.saveState(State.Reported, 'true')
  if (quiet) return core.info(`Nothing to do: ${reason}`)
  core.notice(`MassGen run skipped: ${reason}`)
  const ctx = { target: 'summary' as const, tag: settings.commentTag, runUrl: runUrl(process.env), secrets: [], maxChars: 64_000 }
  await writeSummary({ github: undefined, issueNumber: undefined, settings, runUrl: ctx.runUrl, secrets: [] }, renderSkipped(reason, ctx))
}

function failBeforeRun(error: unknown): void {
  const message = error instanceof InputError || error instanceof IntakeError || error instanceof ModelsError
    ? error.message
    : `Unexpected error: ${error instanceof Error ? error.message : String(error)}`
  core.setOutput(Outputs.Status, 'config-error')
  core.saveState(State.Reported, 'true')
  core.setFailed(message)
}
