// The run proper, once the event says to run: the pull request's context,
// the plan and its config file, MassGen prepared and run under the deadline
// with live progress, and the result judged from what it left behind.
import * as core from '@actions/core'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { stringify } from 'yaml'
import { configRelativePath } from '../plan/config.js'
import { costLimitReached, estimatedCost } from '../run/cost-cap.js'
import { Outputs } from '../core/constants.js'
import { saveStepState } from '../core/step-state.js'
import { killRunContainers } from '../prepare/docker.js'
import { describeSetup } from '../prepare/setup.js'
import { prepareRun } from '../prepare/prepare-run.js'
import type { RunDecision } from '../event/intake.js'
import type { AgentSelection } from '../inputs/models.js'
import { discoverLogDir, readRunFiles } from '../results/log-files.js'
import {
  agentCommandsOn,
  childEnv,
  planRun,
  withMassgenOnPath,
  type RunPlan
} from '../plan/plan.js'
import type { GitHubApi } from '../github/api.js'
import type { ProcessRunner } from '../core/process.js'
import { processIdentity } from '../run/process-identity.js'
import { ProgressTracker, toSnapshot } from '../run/progress.js'
import { renderProgress } from '../report/render.js'
import {
  postComment,
  reportContext,
  type Destination
} from '../report/report.js'
import { judgeRun } from '../results/results.js'
import { runMassgen, type MassgenRunOutcome } from '../run/run-massgen.js'
import { inertLine } from '../run/output-lines.js'
import { sandboxLaunch, type Launch } from '../safety/sandbox.js'
import {
  GUARD_ACTIVE_LINE,
  READ_GATE_ENV,
  withMassgenGuard,
  writeMassgenGuard
} from '../safety/massgen-guard.js'
import type {
  AgentPlan,
  RunResult,
  RunTimings,
  Settings
} from '../core/types.js'
import { gatherContext, type RunContext } from '../context/run-context.js'
import {
  bundledReadServer,
  readServerFolders,
  type ReadServerLaunch
} from '../plan/read-tools.js'
import {
  dockerClientEnv,
  READ_CONTAINER_PREFIX,
  type ReadContainer
} from '../plan/contained-read-server.js'
import { findExecutable } from '../process/executable.js'
import {
  removeReadContainer,
  startReadContainerBeside,
  type StartingReadContainer
} from '../prepare/read-container.js'
import { randomBytes } from 'node:crypto'
import { Inputs } from '../core/constants.js'
import { validateWithMassgen } from '../prepare/validate-config.js'
import {
  mayVote,
  voteRound,
  wantsVote,
  type RoundLimits
} from '../review/vote-round.js'

export async function execute(
  settings: Settings,
  decision: RunDecision,
  dest: Destination,
  workDir: string,
  runner: ProcessRunner,
  /** The head commit checked before the run (head-check.ts), if any. */
  reviewedHead?: string,
  /** What the plan reads GitHub with (the pull request, the conversation). */
  github?: GitHubApi,
  /** Opens GitHub for the repository's instructions when nothing else does. */
  instructionsGitHub?: () => GitHubApi
): Promise<RunResult> {
  const publish = async (body: string) => void (await postComment(dest, body))
  // The first view is not waited for: it goes out while MassGen is prepared
  // and starts; everything posted later queues behind it, so a late first
  // view can never overwrite a newer view or a failure report.
  let firstView: Promise<void> = Promise.resolve()
  const configured = (async () => {
    const context = await gatherContext(
      settings,
      decision,
      github,
      workDir,
      reviewedHead,
      github ?? instructionsGitHub?.()
    )
    const written = writeConfig(settings, decision.agents, context, workDir)
    firstView = publish(
      renderProgress(toSnapshot({}, written.plan.agents, 0), progressCtx(dest))
    )
    return { context, ...written }
  })()
  // Beside the MassGen restore or install and MassGen's own start, not after.
  let reading: StartingReadContainer | undefined
  // Settled before the run ends, so the run-end sweep sees the container.
  const readingSettled = () => reading?.up.catch(() => undefined)
  const setup = await prepareRun(settings, runner, workDir, configured, {
    env: process.env,
    log: core,
    withImage: (config) => {
      if (config.readContainer)
        reading = startReadContainerBeside(
          runner,
          config.readServer,
          readFolders(settings, config.context),
          config.readContainer,
          core,
          workDir
        )
    }
  }).catch(async (error: unknown) => {
    // A failure report must come after the first view, never before it.
    await configured.catch(() => undefined)
    await readingSettled()
    await firstView
    throw error
  })
  const { context, plan, configFile, readServer, readContainer } = setup.config
  const { installation, dockerImage } = setup
  core.info(`Setup: ${describeSetup(setup.timings)}`)
  // Fingerprinted before MassGen first starts; saved by the post step.
  if (installation.pendingSave)
    saveStepState('massgenCacheSave', JSON.stringify(installation.pendingSave))
  const ran = {
    question: decision.question,
    configFile,
    mode: settings.mode,
    ...(settings.personas ? { personas: settings.personas } : {}),
    ...(context.pullRequest ? { pullRequest: context.pullRequest } : {}),
    ...(context.pullFacts ? { pullFacts: context.pullFacts } : {})
  }

  // Before MassGen first starts (the preflight too): what it loads by itself.
  const guardDir = writeMassgenGuard(workDir)
  if (settings.userConfig) {
    const refused = await preflight(runner, installation, configFile, {
      workDir,
      passEnv: settings.passEnv,
      guardDir
    })
    if (refused) {
      await readingSettled()
      await firstView
      return { ...refused, ...ran }
    }
  }
  const tracker = new ProgressTracker({
    after: firstView,
    minIntervalMs: 20_000,
    now: Date.now,
    log: (line) => core.info(line),
    publish: (snapshot) => publish(renderProgress(snapshot, progressCtx(dest)))
  })
  const logBase = path.join(workDir, '.massgen', 'massgen_logs')
  const launch = await launchFor(
    settings,
    workDir,
    runner,
    [...readServerFolders(readServer), guardDir],
    {
      command: installation.command,
      args: [...installation.prefixArgs, ...plan.args],
      env: withReadGate(
        withMassgenGuard(
          withMassgenOnPath(plan.env, installation.command),
          guardDir
        ),
        reading
      )
    }
  )
  const answersStarted = Date.now()
  const { outcome, costAtStop, times } = await watchMassgen(settings, runner, {
    launch,
    workDir,
    logBase,
    agents: plan.agents,
    tracker,
    ...(reading ? { stopOn: reading.up } : {})
  })
  await tracker.close()
  // A read container that did not start stopped MassGen: its error is the run's.
  await reading?.up.catch(async (error: unknown) => {
    await firstView
    throw error
  })
  const first: RunResult = {
    ...judgeOutcome(settings, decision.question, plan.agents, outcome, {
      logBase,
      costAtStop
    }),
    ...ran,
    ...(dockerImage ? { dockerImage } : {}),
    timings: { setup: setup.timings, ...times }
  }
  if (!wantsVote(settings, first)) {
    if (readContainer) await removeReadContainer(runner, readContainer)
    return first
  }
  // The same agents, launch and folders, MassGen's quick mode, no live view.
  const runRound = async (question: string, limits: RoundLimits) => {
    const quick: Settings = {
      ...settings,
      mode: 'quick',
      maxDurationSeconds: limits.seconds,
      maxCost: limits.cost
    }
    const round = writeConfig(
      quick,
      decision.agents,
      { ...context, question },
      workDir,
      'vote',
      readContainer
    )
    const roundLaunch = await launchFor(
      quick,
      workDir,
      runner,
      [...readServerFolders(round.readServer), guardDir],
      {
        command: installation.command,
        args: [...installation.prefixArgs, ...round.plan.args],
        env: withReadGate(
          withMassgenGuard(
            withMassgenOnPath(round.plan.env, installation.command),
            guardDir
          ),
          reading
        )
      }
    )
    const silent = new ProgressTracker({
      after: Promise.resolve(),
      minIntervalMs: 20_000,
      now: Date.now,
      log: (line) => core.info(line),
      publish: () => Promise.resolve()
    })
    const watched = await watchMassgen(quick, runner, {
      launch: roundLaunch,
      workDir,
      logBase,
      agents: round.plan.agents,
      tracker: silent
    })
    await silent.close()
    return judgeOutcome(quick, question, round.plan.agents, watched.outcome, {
      logBase,
      costAtStop: watched.costAtStop
    })
  }
  const findingVote = await voteRound(
    first,
    settings,
    // max-duration bounds both MassGen runs together.
    { seconds: (Date.now() - answersStarted) / 1000 },
    runRound,
    core
  ).catch((error: unknown): RunResult['findingVote'] => {
    core.warning(`The vote on the findings failed: ${String(error)}`)
    return {
      ran: false,
      skipped: 'the vote round failed',
      findings: 0,
      answers: {}
    }
  })
  // The vote round reads through the same read container: gone only now.
  if (readContainer) await removeReadContainer(runner, readContainer)
  return { ...first, findingVote }
}

/** The config MassGen runs with, written private to the run's folder. */
function writeConfig(
  settings: Settings,
  agents: AgentSelection,
  context: RunContext,
  workDir: string,
  /** The vote on the findings writes its own file and sets no output. */
  round: 'answers' | 'vote' = 'answers',
  /** The vote round reads through the answers' read container, still up. */
  answersReadContainer?: ReadContainer
): {
  plan: RunPlan
  configFile: string
  readServer: ReadServerLaunch
  readContainer?: ReadContainer
} {
  const relative = configRelativePath(new Date())
  const configFile = path.join(
    workDir,
    round === 'vote' ? relative.replace(/\.yaml$/, '.vote.yaml') : relative
  )
  const readServer = bundledReadServer()
  const readContainer =
    round === 'vote'
      ? answersReadContainer
      : readContainerFor(settings, workDir)
  const plan = planRun({
    settings,
    question: context.question,
    configFile,
    extraContextPaths: context.extraContextPaths,
    baseEnv: process.env,
    readServer,
    ...(readContainer ? { readContainer } : {}),
    agents
  })
  // The vote round's plan repeats the answers' warnings: said once.
  if (round === 'answers') plan.warnings.forEach((w) => core.warning(w))
  if (round === 'answers' && plan.overridden.length > 0) {
    core.warning(
      `Input '${Inputs.Config}' (${settings.userConfig?.origin ?? 'inline'}): the action kept its own ` +
        `value for ${plan.overridden.length} key(s) it owns: ${plan.overridden.join('; ')}`
    )
  }
  core.info(`MassGen mode: ${modeLine(settings)}`)
  fs.mkdirSync(path.dirname(configFile), { recursive: true })
  fs.writeFileSync(configFile, stringify(plan.config), { mode: 0o600 })
  if (round === 'answers') core.setOutput(Outputs.ConfigFile, configFile)
  core.info(
    `MassGen config: ${configFile} (${plan.agents.map((a) => `${a.id}=${a.backend}/${a.model}`).join(', ')})`
  )
  return {
    plan,
    configFile,
    readServer,
    ...(readContainer ? { readContainer } : {})
  }
}

/**
 * Docker mode's read tools run in a container of the agents' image, as the
 * action's own user, when the agents read without commands. A missing
 * client is prepareDocker's error to give.
 */
function readContainerFor(
  settings: Settings,
  workDir: string
): ReadContainer | undefined {
  if (!settings.docker || agentCommandsOn(settings)) return undefined
  const marker = path.join(workDir, 'read-container')
  fs.mkdirSync(marker, { recursive: true, mode: 0o700 })
  return {
    docker: findExecutable('docker', process.env) ?? '/usr/bin/docker',
    name: `${READ_CONTAINER_PREFIX}${randomBytes(4).toString('hex')}`,
    image: settings.dockerImage,
    user: `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`,
    env: dockerClientEnv(process.env),
    marker
  }
}

/** The folders the read server serves: those of MassGen's context paths. */
function readFolders(settings: Settings, context: RunContext): string[] {
  return [settings.contextPath, ...context.extraContextPaths]
}

/**
 * MassGen run under the deadline, the job's cancel and max-cost, its output
 * streamed and its status.json fed to the live view.
 */
async function watchMassgen(
  settings: Settings,
  runner: ProcessRunner,
  run: {
    launch: Launch
    workDir: string
    logBase: string
    agents: AgentPlan[]
    tracker: ProgressTracker
    /** Its rejection stops MassGen (the read container did not start). */
    stopOn?: Promise<unknown>
  }
): Promise<{
  outcome: MassgenRunOutcome
  costAtStop: number | undefined
  times: RunTimings
}> {
  const abort = new AbortController()
  run.stopOn?.catch(() => abort.abort())
  let spawnedAt: number | undefined
  let firstStatusAt: number | undefined
  const onSignal = () => abort.abort()
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal)
  const started = Date.now()
  core.startGroup('MassGen output')
  let containersKilled: Promise<number> | undefined
  let costAtStop: number | undefined
  const outcome = await runMassgen(runner, {
    ...run.launch,
    cwd: run.workDir,
    logBase: run.logBase,
    maxDurationSeconds: settings.maxDurationSeconds,
    abort: abort.signal,
    log: (message) => core.info(message),
    onStart: (pid) => {
      spawnedAt = performance.now()
      saveStepState('massgenPid', pid)
      saveStepState('massgenIdentity', processIdentity(pid) ?? '')
    },
    onLine: (line) => {
      core.info(inertLine(line))
      // MassGen's last result line: its containers' work is over.
      if (settings.docker && line.startsWith('COMPLETED:'))
        containersKilled ??= killRunContainers(runner, run.workDir, {
          keepReadContainer: mayVote(settings)
        })
    },
    onStatus: (status) => {
      firstStatusAt ??= performance.now()
      run.tracker.update(
        toSnapshot(status, run.agents, (Date.now() - started) / 1000)
      )
    },
    stopWhen: (status) => {
      if (!costLimitReached(status, settings.maxCost)) return false
      costAtStop = estimatedCost(status)
      core.warning(
        `MassGen's estimated cost $${costAtStop?.toFixed(4)} reached max-cost ` +
          `($${settings.maxCost}): stopping MassGen as on a timeout.`
      )
      return true
    }
  })
  core.endGroup()
  await containersKilled
  process.off('SIGINT', onSignal).off('SIGTERM', onSignal)
  if (outcome.survivors)
    core.warning('Some MassGen processes outlived SIGKILL of their group')
  const endedAt = performance.now()
  const between = (from: number | undefined, to: number | undefined) =>
    from === undefined || to === undefined
      ? undefined
      : Math.round(to - from) / 1000
  const massgenStart = between(spawnedAt, firstStatusAt)
  const rounds = between(firstStatusAt, endedAt)
  return {
    outcome,
    costAtStop,
    times: {
      ...(massgenStart !== undefined ? { massgenStart } : {}),
      ...(rounds !== undefined ? { rounds } : {}),
      massgenEndedAt: endedAt
    }
  }
}

/** What MassGen left behind, judged (results/results.ts). */
function judgeOutcome(
  settings: Settings,
  question: string,
  agents: AgentPlan[],
  outcome: MassgenRunOutcome,
  seen: { logBase: string; costAtStop: number | undefined }
): RunResult {
  const logDir = outcome.hints.logDir ?? discoverLogDir(seen.logBase)
  const files = logDir
    ? readRunFiles(
        logDir,
        agents.map((a) => a.id),
        outcome.hints
      )
    : {
        statusUnreadable: false,
        answers: {},
        votes: {},
        answersTruncated: false
      }
  if (logDir) saveStepState('logDir', logDir)
  return judgeRun({
    question,
    agents,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    cancelled: outcome.cancelled,
    ...(outcome.stoppedByStatus && settings.maxCost !== undefined
      ? { costLimit: { maxCost: settings.maxCost, seenCost: seen.costAtStop } }
      : {}),
    maxDurationSeconds: settings.maxDurationSeconds,
    logDir,
    files,
    configErrors: configErrorLines(outcome.stderrTail),
    wallSeconds: outcome.wallSeconds
  })
}

function modeLine(settings: Settings): string {
  return settings.personas
    ? `${settings.mode}, personas ${settings.personas}`
    : settings.mode
}

/**
 * MassGen's own validation of the merged config, with no key in its
 * environment (it needs none): a config-error result when it finds errors,
 * undefined when the file is valid or MassGen gave no JSON answer.
 */
async function preflight(
  runner: ProcessRunner,
  installation: { command: string; prefixArgs: string[] },
  configFile: string,
  where: { workDir: string; passEnv: readonly string[]; guardDir: string }
): Promise<Omit<RunResult, 'question'> | undefined> {
  const { workDir, passEnv, guardDir } = where
  const env = withMassgenGuard(
    withMassgenOnPath(
      childEnv(process.env, {}, [], passEnv),
      installation.command
    ),
    guardDir
  )
  const started = Date.now()
  const verdict = await validateWithMassgen(
    runner,
    { ...installation, env },
    configFile,
    workDir
  ).catch(() => undefined)
  if (!verdict) {
    core.info(
      'MassGen gave no validation result; the run validates the config itself.'
    )
    return undefined
  }
  if (verdict.warnings.length > 0)
    core.warning(
      `MassGen's validation warns about the merged config: ${verdict.warnings.join('; ')}`
    )
  if (verdict.valid) {
    core.info('MassGen validated the merged config.')
    return undefined
  }
  verdict.errors.forEach((e) => core.error(`MassGen config error: ${e}`))
  return {
    outcome: 'config-error',
    reason:
      `MassGen's validation rejected the config merged from input '${Inputs.Config}'; ` +
      'nothing was run.',
    exitCode: null,
    agents: [],
    votes: {},
    configErrors: verdict.errors,
    elapsedSeconds: Math.round((Date.now() - started) / 100) / 10
  }
}

/** MassGen's MCP servers wait for the read container (safety/massgen-guard.ts). */
function withReadGate(
  env: NodeJS.ProcessEnv,
  reading: StartingReadContainer | undefined
): NodeJS.ProcessEnv {
  return reading ? { ...env, [READ_GATE_ENV]: reading.gate } : env
}

/** Local mode's MassGen starts in the sandbox unless that is turned off. */
async function launchFor(
  settings: Settings,
  workDir: string,
  runner: ProcessRunner,
  /** Folders the sandbox shows read-only besides MassGen's own (the guard's too). */
  toolPaths: string[],
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
    toolPaths,
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
function withOpenUmask(launch: Launch): Launch {
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
function configErrorLines(stderr: string[]): string[] {
  const marked = stderr
    .filter((line) => /❌|💡/.test(line))
    .map((line) => line.trim())
  if (marked.length > 0) return marked.slice(0, 60)
  return stderr
    .filter(
      (line) =>
        line.trim() &&
        line !== GUARD_ACTIVE_LINE &&
        !/Warning|^\s+(from|with|import) |^It will be compatible/.test(line)
    )
    .slice(-20)
}

function progressCtx(dest: Destination) {
  return reportContext(dest, 'comment')
}
