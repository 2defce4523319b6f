// The suite's pull-request run: the bundled action on the opened-PR fixture
// (#42) against a loopback GitHub, with the MassGen stand-in. Each test
// changes only what it is about.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { event, KEYS } from './fixtures.ts'
import { massgenBinary } from './massgen-binary.ts'
import type { GitHubServer } from './github-server.ts'
import {
  FAKE_MASSGEN,
  openTempDir,
  runAction,
  type ActionRun,
  type RunOptions
} from './run-action.ts'

/** Inputs an object of presets may leave out again (undefined: not given). */
export type PrInputs = Record<string, string | undefined>

/** The question, two models with their keys, and the stand-in. */
export const PR_INPUTS = {
  query: 'Is the parser change safe?',
  models: 'openai/gpt-5.4 gemini/gemini-3.1-pro-preview',
  'openai-api-key': KEYS.openai,
  'gemini-api-key': KEYS.google,
  'massgen-command': FAKE_MASSGEN
} as const

/** One model and its one key, over PR_INPUTS. */
export const ONE_MODEL: PrInputs = {
  models: 'openai/gpt-5.4',
  'gemini-api-key': undefined
}

/**
 * The reliability suite's run, over PR_INPUTS: every provider's key (more to
 * leak), a short max-duration, no log upload and no MassGen cache.
 */
export const EVERY_KEY_QUICK: PrInputs = {
  'anthropic-api-key': KEYS.anthropic,
  'xai-api-key': KEYS.xai,
  'massgen-command': `node ${FAKE_MASSGEN}`,
  'max-duration': '10',
  'upload-logs': 'false',
  'cache-massgen': 'false'
}

/**
 * A review of #42 by three scripted agents (model-a..c on the scripted LLM
 * server at `llmUrl`) with the real MassGen, inline; or with `massgen`, the
 * stand-in that plays them (scriptedAgents).
 */
export function threeAgentReview(
  llmUrl: string,
  massgen: string = massgenBinary()
): Record<string, string> {
  return agentsReview(['model-a', 'model-b', 'model-c'], llmUrl, massgen)
}

/** The same review by two agents, model-a and model-b. */
export function twoAgentReview(
  llmUrl: string,
  massgen: string = massgenBinary()
): Record<string, string> {
  return agentsReview(['model-a', 'model-b'], llmUrl, massgen)
}

function agentsReview(
  models: string[],
  llmUrl: string,
  massgen: string
): Record<string, string> {
  return {
    query: 'Review this pull request.',
    models: models.map((m) => `vllm/${m}`).join(' '),
    'base-url': llmUrl,
    'openai-api-key': KEYS.openai,
    'massgen-command': massgen,
    'max-duration': '600',
    'upload-logs': 'false',
    review: 'inline'
  }
}

export interface PrRunOptions extends Omit<RunOptions, 'inputs'> {
  /** Over PR_INPUTS; an undefined value leaves that input out. */
  inputs?: PrInputs
}

/** PR_INPUTS with `inputs` over them, the undefined ones left out. */
export function prInputs(inputs: PrInputs = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries({ ...PR_INPUTS, ...inputs }).filter(
      (entry): entry is [string, string] => entry[1] !== undefined
    )
  )
}

/** A pull_request run (the opened fixture, PR #42) against `github`. */
export function prRun(
  github: GitHubServer,
  options: PrRunOptions = {}
): Promise<ActionRun> {
  return runAction({
    eventName: 'pull_request',
    payload: event('pull_request.opened'),
    githubApiUrl: github.url,
    ...options,
    inputs: prInputs(options.inputs)
  })
}

/** What one agent of the stand-in answers and whom it votes for. */
export interface ScriptedAgent {
  answer: string
  voteFor: string
  voteReason?: string
}

/** The base URL given with the stand-in: its agents send no request. */
export const NO_LLM_URL = 'http://127.0.0.1:9/v1'

/**
 * The environment that makes the stand-in (`massgen-command: FAKE_MASSGEN`)
 * play a finished run whose agents answered and voted as `agents` says, in
 * the layout MassGen 0.1.97 leaves (recordings `success-2-agents` and
 * `split-3-agents`, docs/test-contracts.md facts 21 and 22). For the tests
 * whose fact is what the action does with the answers, not MassGen's.
 */
export function scriptedAgents(
  agents: Record<string, ScriptedAgent>
): Record<string, string> {
  const script = JSON.stringify(agents)
  // One environment variable holds at most 128 KiB (MAX_ARG_STRLEN).
  if (script.length < 64 * 1024)
    return { FAKE_MASSGEN_SCENARIO: 'scripted', FAKE_MASSGEN_AGENTS: script }
  const file = path.join(openTempDir('scripted-agents-'), 'agents.json')
  fs.writeFileSync(file, script)
  return { FAKE_MASSGEN_SCENARIO: 'scripted', FAKE_MASSGEN_AGENTS_FILE: file }
}
