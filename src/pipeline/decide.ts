// Whether this event runs at all, decided once into typed values for every
// role: the role, the trigger, the inputs (and the setup files from the base
// commit), the agents, and for role 'run' the intake's decision. Every later
// stage reads them; none writes to them.
import * as core from '@actions/core'
import { context } from '@actions/github'
import { Defaults, Inputs } from '../core/constants.js'
import type { Settings, Trigger } from '../core/types.js'
import { parseCommand } from '../event/command.js'
import {
  intake,
  labelSkip,
  type Intake,
  type RunDecision
} from '../event/intake.js'
import { localModeRefusal } from '../event/local-mode.js'
import {
  eventBase,
  eventDefaultBranch,
  setupSourceFor,
  type SetupSource
} from '../event/setup-source.js'
import { readTrigger } from '../event/trigger.js'
import { readSettingsFile, withBaseSetup } from '../context/base-setup.js'
import type { GitHubApi } from '../github/api.js'
import { MissingKeysError } from '../inputs/models.js'
import {
  InputError,
  readReportSettings,
  readSettings
} from '../inputs/settings.js'
import {
  layeredInputs,
  SETTINGS_FILE,
  type SettingsFile
} from '../inputs/settings-file.js'
import { readShardInputs, type ShardInputs } from '../inputs/shard-inputs.js'
import type { AgentChoice } from '../inputs/models.js'
import { chooseAgents } from '../plan/plan.js'
import {
  planSettingsFile,
  readShardPlan,
  type ShardPlanRead
} from '../shards/shard-job.js'
import { destinationFor } from './destination.js'
import type { Destination } from '../report/report.js'
import { actionSecrets, actionToken, gitHubOnce } from './step-env.js'
import {
  failBeforeRun,
  failureText,
  failVisibly,
  refuse,
  skip
} from './stops.js'

/** What every role decides the same way, once. */
interface DecidedStep {
  readonly settings: Settings
  /** The role and the other inputs of a matrix review (shard-inputs.ts). */
  readonly inputs: ShardInputs
  /** The keys and the token, masked (step-env.ts). */
  readonly secrets: readonly string[]
  /** The step's one GitHub client, opened on first use. */
  readonly github: () => GitHubApi
}

/** A one-runner run the event, the inputs and the intake allow. */
export interface Decided extends DecidedStep {
  readonly role: 'run'
  readonly trigger: Trigger
  readonly decision: RunDecision
}

/** A role of a matrix review (docs/matrix-review.md), with its agents. */
export interface DecidedRole extends DecidedStep {
  readonly role: 'matrix' | 'shard' | 'aggregate'
  /** The step's one choice of agents, or why none can run (a shard says it in its record). */
  readonly agents: AgentChoice
  /** The pull request the role works on (the event's, else `issue-number`). */
  readonly pullNumber: number | undefined
  /** The repository config file the settings were read with (the matrix puts it in the shards' plan). */
  readonly settingsFile: SettingsFile | undefined
  /** Role 'shard': its plan, read once here (its config file is in it). */
  readonly shardPlan?: ShardPlanRead
}

/** Undefined when the event is skipped, refused or failed (said where it belongs). */
export async function decide(): Promise<Decided | DecidedRole | undefined> {
  // Masked before anything can print them.
  const secrets = actionSecrets(actionToken())
  const role = await readRoleInputs((name) => core.getInput(name))
  if (!role) return undefined
  const trigger = readTrigger(
    context.eventName,
    context.payload,
    process.env.GITHUB_ACTOR ?? '',
    process.env.GITHUB_REPOSITORY ?? ''
  )
  const setupSource = setupSourceFor(trigger, context.payload)
  const github = gitHubOnce(actionToken())
  // A shard's plan, read once: its config file is in it.
  const shardPlan =
    role.role === 'shard' ? await readShardPlan(role) : undefined
  const file = shardPlan
    ? planSettingsFile(shardPlan)
    : await loadSettingsFile(role, { trigger, setupSource }, github)
  if (file === 'failed') return undefined
  // The matrix review's own keys (shard-paths, max-shards...) may come from
  // the file too: read again through it.
  const inputs = await readRoleInputs(layeredInputs(roleSource(file)).getInput)
  if (!inputs) return undefined
  // A matrix role never reads setup files from the checkout: a shard has no
  // token to read them from the base commit.
  const read = await readInputs(
    inputs.role !== 'run' || setupSource.from !== 'workspace',
    file,
    () =>
      // A bad key of the repository's file is said where a broken setup is.
      file ? fileErrorDestination(trigger, github) : undefined
  )
  if (!read) return undefined
  const settings =
    inputs.role === 'run'
      ? await loadBaseSetup(read, { trigger, setupSource }, github)
      : read
  if (!settings) return undefined
  // The agents are chosen once, here, for every role; the intake, the plan
  // and a shard's run reuse the choice.
  const agents = chooseAgents(settings)
  const step = { inputs, secrets, github }
  if (inputs.role !== 'run')
    return {
      ...step,
      settings,
      role: inputs.role,
      agents,
      pullNumber: pullNumberOf(settings),
      settingsFile: file,
      ...(shardPlan ? { shardPlan } : {})
    }
  const decision = await decideRun(
    settings,
    trigger,
    { gh: github, secrets },
    agents
  )
  if (!decision) return undefined
  // Only a quiet skip leaves setup files unread; never run without them.
  if (settings.baseSetup.length > 0) {
    await failBeforeRun(
      new InputError('The setup files were not read; nothing was run.')
    )
    return undefined
  }
  return { ...step, role: 'run', settings, trigger, decision }
}

/** The role and the matrix review's inputs, read and checked first. */
async function readRoleInputs(
  getInput: (name: string) => string
): Promise<ShardInputs | undefined> {
  try {
    return readShardInputs(getInput)
  } catch (error) {
    await failBeforeRun(error)
    return undefined
  }
}

/** The pull request of the event, else `issue-number`. */
function pullNumberOf(settings: Settings): number | undefined {
  const payload = context.payload as {
    pull_request?: { number?: unknown }
    issue?: { number?: unknown; pull_request?: unknown }
  }
  const pr = payload.pull_request?.number
  if (typeof pr === 'number') return pr
  const issue = payload.issue
  if (issue?.pull_request && typeof issue.number === 'number')
    return issue.number
  return settings.issueNumber
}

/** The inputs, read and checked (the keys are masked already). */
async function readInputs(
  setupFromBase: boolean,
  settingsFile: SettingsFile | undefined,
  destination: () => Destination | undefined
): Promise<Settings | undefined> {
  try {
    return readSettings({ ...roleSource(settingsFile), setupFromBase })
  } catch (error) {
    await failBeforeRun(error, destination())
    return undefined
  }
}

/** The inputs and the repository config file, as the settings read them. */
function roleSource(settingsFile: SettingsFile | undefined) {
  return {
    getInput: (name: string) => core.getInput(name),
    env: process.env,
    workspace: process.env.GITHUB_WORKSPACE || process.cwd(),
    setupFromBase: true,
    settingsFile,
    warn: (message: string) => core.warning(message)
  }
}

/**
 * The repository config file (context/base-setup.ts readSettingsFile), read
 * before the inputs it fills; 'failed' when it cannot be used (said on the
 * pull request too). A comment that is not a command reads none, nor does
 * an event the action ignores (a shard takes the file from its plan).
 */
async function loadSettingsFile(
  role: ShardInputs,
  source: { trigger: Trigger; setupSource: SetupSource },
  gh: () => GitHubApi
): Promise<SettingsFile | undefined | 'failed'> {
  if (role.role === 'run' && skippedBeforeFile(source.trigger)) return undefined
  // An event the action ignores (an edited comment) names no base commit:
  // a matrix role would read the checkout, which may be the pull request's,
  // and without the file its gate would be the defaults: it stops instead.
  if (source.trigger.kind === 'ignored') {
    await failBeforeRun(
      new InputError(
        `Role '${role.role}' on a '${context.eventName}' event the action does not run on: its base commit, where ${SETTINGS_FILE} is read, is unknown. Run the matrix review on pull_request events.`
      )
    )
    return 'failed'
  }
  const token = actionToken()
  try {
    return await readSettingsFile(source.setupSource, {
      workspace: process.env.GITHUB_WORKSPACE || process.cwd(),
      github: token ? gh : undefined,
      base: eventBase(context.payload),
      defaultBranch: eventDefaultBranch(context.payload),
      note: (message) => core.info(message)
    })
  } catch (error) {
    await failBeforeRun(error, fileErrorDestination(source.trigger, gh))
    return 'failed'
  }
}

/**
 * A comment that is not a command, or a label that is not the trigger's,
 * is skipped quietly by the intake: it reads no file, asking GitHub nothing.
 * Both words are inputs of the workflow, never keys of the file.
 */
function skippedBeforeFile(trigger: Trigger): boolean {
  const words = {
    trigger: core.getInput(Inputs.Trigger).trim() || Defaults.Trigger,
    labelTrigger: core.getInput(Inputs.LabelTrigger).trim()
  }
  if (trigger.kind === 'pull_request')
    return labelSkip(words, trigger) !== undefined
  return skippedQuietly(trigger, words)
}

/** Where an error of the repository's file is said: the pull request too. */
function fileErrorDestination(
  trigger: Trigger,
  gh: () => GitHubApi
): Destination {
  const report = {
    comment: core.getInput(Inputs.Comment).trim().toLowerCase() !== 'false',
    ...readReportSettings({ getInput: (name) => core.getInput(name) }),
    githubToken: actionToken()
  }
  return setupErrorDestination(report, trigger, gh)
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
    // The base branch's setup is broken: said on the pull request too, so
    // its author learns why no review came.
    await failBeforeRun(
      error,
      setupErrorDestination(settings, source.trigger, gh)
    )
    return undefined
  }
}

/** Where a broken setup is said: the pull request or issue the event is on. */
function setupErrorDestination(
  settings: Pick<
    Settings,
    'comment' | 'jobSummary' | 'commentTag' | 'githubToken'
  >,
  trigger: Trigger,
  gh: () => GitHubApi
): Destination {
  const issueNumber =
    trigger.kind === 'pull_request'
      ? trigger.number
      : trigger.kind === 'comment'
        ? trigger.issueNumber
        : undefined
  return destinationFor(
    settings,
    { issueNumber, replyTo: undefined },
    gh,
    actionSecrets(settings.githubToken)
  )
}

function skippedQuietly(
  trigger: Trigger,
  settings: Pick<Settings, 'trigger'>
): boolean {
  if (trigger.kind === 'ignored') return true
  if (trigger.kind !== 'comment' && trigger.kind !== 'review_comment')
    return false
  return parseCommand(trigger.body, settings.trigger).kind === 'not-command'
}

/**
 * The trigger and permission gate (intake), local mode's refusal of
 * untrusted events, and the models against the keys, all before anything
 * costly. Undefined when it was skipped or refused.
 */
async function decideRun(
  settings: Settings,
  trigger: Trigger,
  { gh, secrets }: { gh: () => GitHubApi; secrets: readonly string[] },
  agents: AgentChoice
): Promise<RunDecision | undefined> {
  let decision: Intake
  try {
    decision = await intake(settings, trigger, gh, agents)
  } catch (error) {
    await failBeforeRun(error)
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
    await failBeforeRun(agents.error)
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
