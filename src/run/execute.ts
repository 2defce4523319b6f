// The run proper, once the event says to run: the pull request's context,
// the plan and its config file, MassGen prepared and run under the deadline
// with live progress, and the result judged from what it left behind.
import * as core from '@actions/core'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { stringify } from 'yaml'
import { configRelativePath } from '../plan/config.js'
import { Outputs, State } from '../inputs/constants.js'
import { grantContainerWrite } from '../prepare/container-write-access.js'
import { killRunContainers, prepareDocker } from '../prepare/docker.js'
import { prepareMassgen } from '../prepare/massgen.js'
import type { Intake } from '../event/intake.js'
import { discoverLogDir, readRunFiles } from '../results/log-files.js'
import { planRun, withMassgenOnPath } from '../plan/plan.js'
import { prContextNote, writePrContext } from '../plan/pr-context.js'
import type { ProcessRunner } from './process.js'
import { processIdentity } from './process-identity.js'
import { ProgressTracker, toSnapshot } from './progress.js'
import { renderProgress } from '../report/render.js'
import {
  commentBudget,
  postComment,
  type Destination
} from '../report/report.js'
import { judgeRun } from '../results/results.js'
import { runMassgen } from './run-massgen.js'
import { sandboxLaunch, type Launch } from '../safety/sandbox.js'
import type { RunResult, Settings } from '../inputs/types.js'

export async function execute(
  settings: Settings,
  decision: Extract<Intake, { action: 'run' }>,
  dest: Destination,
  workDir: string,
  runner: ProcessRunner,
  /** The head commit checked before the run (head-check.ts), if any. */
  reviewedHead?: string
): Promise<RunResult> {
  let question = decision.question
  const extraContext: string[] = []
  if (decision.pullRequest && settings.prContext && dest.github) {
    const pr = await dest.github.getPullRequestContext(
      decision.pullRequest,
      settings.prDiffMaxBytes
    )
    if (reviewedHead && pr.headSha.toLowerCase() !== reviewedHead) {
      throw new Error(
        `The pull request's head moved to ${pr.headSha.slice(0, 12)} while the run ` +
          `started (checked: ${reviewedHead.slice(0, 12)}). Nothing was run; comment again.`
      )
    }
    const dir = path.join(workDir, 'pr-context')
    writePrContext(dir, pr)
    extraContext.push(dir)
    question += prContextNote(dir, pr)
  }
  const configFile = path.join(workDir, configRelativePath(new Date()))
  const plan = planRun({
    settings,
    question,
    configFile,
    extraContextPaths: extraContext,
    baseEnv: process.env
  })
  plan.warnings.forEach((w) => core.warning(w))
  fs.mkdirSync(path.dirname(configFile), { recursive: true })
  fs.writeFileSync(configFile, stringify(plan.config), { mode: 0o600 })
  core.setOutput(Outputs.ConfigFile, configFile)
  core.info(
    `MassGen config: ${configFile} (${plan.agents.map((a) => `${a.id}=${a.backend}/${a.model}`).join(', ')})`
  )

  const publish = async (body: string) => void (await postComment(dest, body))
  const firstView = publish(
    renderProgress(toSnapshot({}, plan.agents, 0), progressCtx(dest))
  )
  const prepare = async () => {
    // Docker first: its checks fail in a second, before a long install.
    if (settings.docker) await prepareDocker(runner, settings.dockerImage, core)
    if (settings.docker && settings.contextPermission === 'write')
      await grantContainerWrite(
        runner,
        settings.dockerImage,
        [settings.contextPath],
        core,
        workDir
      )
    return prepareMassgen(runner, {
      version: settings.massgenVersion,
      command: settings.massgenCommand,
      docker: settings.docker,
      useCache: settings.cacheMassgen,
      toolCacheDir:
        process.env.RUNNER_TOOL_CACHE || path.join(os.homedir(), '.cache'),
      env: process.env,
      log: core
    })
  }
  // The first view is not waited for: it goes out while MassGen is prepared
  // and starts; everything posted later queues behind it, so a late first
  // view can never overwrite a newer view or a failure report.
  const installation = await prepare().catch(async (error: unknown) => {
    await firstView
    throw error
  })

  const abort = new AbortController()
  const onSignal = () => abort.abort()
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal)
  const started = Date.now()
  const tracker = new ProgressTracker({
    after: firstView,
    minIntervalMs: 20_000,
    now: Date.now,
    log: (line) => core.info(line),
    publish: (snapshot) => publish(renderProgress(snapshot, progressCtx(dest)))
  })
  const logBase = path.join(workDir, '.massgen', 'massgen_logs')
  const launch = await launchFor(settings, workDir, runner, {
    command: installation.command,
    args: [...installation.prefixArgs, ...plan.args],
    env: withMassgenOnPath(plan.env, installation.command)
  })
  core.startGroup('MassGen output')
  let containersKilled: Promise<number> | undefined
  const outcome = await runMassgen(runner, {
    ...launch,
    cwd: workDir,
    logBase,
    maxDurationSeconds: settings.maxDurationSeconds,
    abort: abort.signal,
    log: (message) => core.info(message),
    onStart: (pid) => {
      core.saveState(State.MassgenPid, String(pid))
      core.saveState(State.MassgenIdentity, processIdentity(pid) ?? '')
    },
    onLine: (line) => {
      core.info(line)
      // MassGen's last result line: its containers' work is over.
      if (settings.docker && line.startsWith('COMPLETED:'))
        containersKilled ??= killRunContainers(runner, workDir)
    },
    onStatus: (status) =>
      tracker.update(
        toSnapshot(status, plan.agents, (Date.now() - started) / 1000)
      )
  })
  core.endGroup()
  await containersKilled
  process.off('SIGINT', onSignal).off('SIGTERM', onSignal)
  await tracker.close()
  if (outcome.survivors)
    core.warning('Some MassGen processes outlived SIGKILL of their group')

  const logDir = outcome.hints.logDir ?? discoverLogDir(logBase)
  const files = logDir
    ? readRunFiles(
        logDir,
        plan.agents.map((a) => a.id),
        outcome.hints
      )
    : {
        statusUnreadable: false,
        answers: {},
        votes: {},
        answersTruncated: false
      }
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

/** Local mode's MassGen starts in the sandbox unless that is turned off. */
async function launchFor(
  settings: Settings,
  workDir: string,
  runner: ProcessRunner,
  launch: Launch
): Promise<Launch> {
  if (settings.docker) return withOpenUmask(launch)
  if (!settings.localSandbox) {
    core.warning(
      "Local mode without the sandbox ('local-sandbox: false'): the agents' commands " +
        'run as the runner user and can read the GitHub token, the API keys and ' +
        "the job's files. Use it only for trusted questions."
    )
    return launch
  }
  return sandboxLaunch(runner, launch, {
    workDir,
    contextPaths: [
      {
        path: settings.contextPath,
        writable: settings.contextPermission === 'write'
      }
    ],
    env: process.env,
    log: core
  })
}

/**
 * Docker mode: MassGen creates each agent's workspace on the runner, but the
 * agent's commands run as the image's user (uid 1000 in MassGen's images; the
 * runner user is 1001 on GitHub), who could not write there. With umask 0
 * the folders MassGen makes are open to that user; the run's folder itself
 * stays private (0700), so no other user of the runner can reach them.
 */
export function withOpenUmask(launch: Launch): Launch {
  return {
    ...launch,
    command: '/bin/sh',
    args: ['-c', 'umask 000 && exec "$0" "$@"', launch.command, ...launch.args]
  }
}

/**
 * MassGen's validation messages: `❌ [location] message` lines with their
 * `💡 Suggestion` lines on stderr; the rest of stderr is warnings noise.
 */
export function configErrorLines(stderr: string[]): string[] {
  const marked = stderr
    .filter((line) => /❌|💡/.test(line))
    .map((line) => line.trim())
  if (marked.length > 0) return marked.slice(0, 60)
  return stderr
    .filter(
      (line) =>
        line.trim() &&
        !/Warning|^\s+(from|with|import) |^It will be compatible/.test(line)
    )
    .slice(-20)
}

function progressCtx(dest: Destination) {
  return {
    runUrl: dest.runUrl,
    tag: dest.settings.commentTag,
    maxChars: commentBudget(dest.settings.commentTag),
    secrets: dest.secrets
  }
}
