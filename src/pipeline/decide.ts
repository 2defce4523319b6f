// Whether this event runs at all, decided once into typed values: the
// trigger, the inputs (and the setup files from the base commit), the
// intake's decision with its agents. Every later stage reads them; none
// writes to them.
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
  eventBaseSha,
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
import type { SettingsFile } from '../inputs/settings-file.js'
import { chooseAgents } from '../plan/plan.js'
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

/** A run the event, the inputs and the intake allow. */
export interface Decided {
  readonly settings: Settings
  readonly trigger: Trigger
  readonly decision: RunDecision
  /** The keys and the token, masked (step-env.ts). */
  readonly secrets: readonly string[]
  /** The step's one GitHub client, opened on first use. */
  readonly github: () => GitHubApi
}

/** Undefined when the event is skipped, refused or failed (said where it belongs). */
export async function decide(): Promise<Decided | undefined> {
  const trigger = readTrigger(
    context.eventName,
    context.payload,
    process.env.GITHUB_ACTOR ?? '',
    process.env.GITHUB_REPOSITORY ?? ''
  )
  const setupSource = setupSourceFor(trigger, context.payload)
  const secrets = actionSecrets(actionToken())
  const github = gitHubOnce(actionToken())
  const file = await loadSettingsFile({ trigger, setupSource }, github)
  if (file === 'failed') return undefined
  const inputs = await readInputs(setupSource.from !== 'workspace', file, () =>
    // A bad key of the repository's file is said where a broken setup is.
    file ? fileErrorDestination(trigger, github) : undefined
  )
  if (!inputs) return undefined
  const settings = await loadBaseSetup(inputs, { trigger, setupSource }, github)
  if (!settings) return undefined
  const decision = await decideRun(settings, trigger, github, secrets)
  if (!decision) return undefined
  // Only a quiet skip leaves setup files unread; never run without them.
  if (settings.baseSetup.length > 0) {
    await failBeforeRun(
      new InputError('The setup files were not read; nothing was run.')
    )
    return undefined
  }
  return { settings, trigger, decision, secrets, github }
}

/** The inputs, read and checked (the keys are masked already). */
async function readInputs(
  setupFromBase: boolean,
  settingsFile: SettingsFile | undefined,
  destination: () => Destination | undefined
): Promise<Settings | undefined> {
  try {
    return readSettings({
      getInput: (name) => core.getInput(name),
      env: process.env,
      workspace: process.env.GITHUB_WORKSPACE || process.cwd(),
      setupFromBase,
      settingsFile,
      warn: (message) => core.warning(message)
    })
  } catch (error) {
    await failBeforeRun(error, destination())
    return undefined
  }
}

/**
 * The repository config file (context/base-setup.ts readSettingsFile), read
 * before the inputs it fills; 'failed' when it cannot be used (said on the
 * pull request too). A comment that is not a command reads none.
 */
async function loadSettingsFile(
  source: { trigger: Trigger; setupSource: SetupSource },
  gh: () => GitHubApi
): Promise<SettingsFile | undefined | 'failed'> {
  if (skippedBeforeFile(source.trigger)) return undefined
  const token = actionToken()
  try {
    return await readSettingsFile(source.setupSource, {
      workspace: process.env.GITHUB_WORKSPACE || process.cwd(),
      github: token ? gh : undefined,
      baseSha: eventBaseSha(context.payload),
      warn: (message) => core.warning(message)
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
  gh: () => GitHubApi,
  secrets: readonly string[]
): Promise<RunDecision | undefined> {
  // The agents are chosen once, here; the intake and the plan reuse the choice.
  const agents = chooseAgents(settings)
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
