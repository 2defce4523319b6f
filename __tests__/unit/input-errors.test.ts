// Every bad input the action refuses, decided by the pure readers in the
// order the main step calls them: the settings reader, the event intake (the
// question a pull request needs), then the models against the keys. Each
// message names the input and the expected form. That the message reaches
// the runner as one `::error::`, with status config-error, exit 1, nothing
// started and nothing posted, is proven through the bundle by a few cases in
// __tests__/reliability/bad-inputs.test.ts.
import { beforeAll, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { intake, IntakeError } from '../../src/event/intake.js'
import { readTrigger } from '../../src/event/trigger.js'
import { fakeGitHub } from '../../test-support/fake-github.js'
import { defaultState } from '../../test-support/github-state.js'
import { ModelsError } from '../../src/inputs/models.js'
import { chooseAgents } from '../../src/plan/plan.js'
import { InputError, readSettings } from '../../src/inputs/settings.js'
import { event, KEYS } from '../../test-support/fixtures.js'
import { EVERY_KEY_QUICK, prInputs } from '../../test-support/pr-run.js'
import { tally } from '../../test-support/tallies.js'

interface BadInput {
  name: string
  inputs: Record<string, string>
  /** The input the message must name. */
  input: string
  /** The expected form (or the fix) the message must give. */
  form: RegExp
}

const NO_KEYS = {
  'openai-api-key': '',
  'gemini-api-key': '',
  'anthropic-api-key': '',
  'xai-api-key': ''
}
const pairs = (n: number) =>
  Array.from({ length: n }, (_, i) => `openai/m${i}`).join(' ')
const PAIR = /backend\/model pair \(expected e\.g\. 'openai\/gpt-5\.4/
const BACKEND =
  /unknown backend .*expected one of: openai, gemini, claude, grok, codex, claude_code, chatcompletion, vllm/
const SECONDS = /expected whole seconds from 1 to 21600/
const BOOL = /expected 'true' or 'false'/
const URL_FORM =
  /expected an http\(s\) URL such as 'http:\/\/localhost:8000\/v1'/
const TAG = /expected letters, digits, dot, dash or underscore \(at most 64\)/
const ISSUE = /expected an issue or pull request number/
const COMMAND =
  /expected a command and its arguments, e\.g\. 'uvx massgen==0\.1\.97'/
const VERSION = /expected a pinned MassGen release such as '0\.1\.97'/
const IMAGE =
  /expected a Docker image reference such as 'ghcr\.io\/massgen\/mcp-runtime-sudo:latest'/
const INSIDE = /outside the workspace \(expected a file path inside /
const READABLE = /expected a regular file inside the workspace/
const NO_LINK =
  /goes through a link \(expected a regular file inside the workspace/

const CASES: BadInput[] = [
  // models
  {
    name: 'models: a word without a slash',
    inputs: { models: 'openai' },
    input: 'models',
    form: PAIR
  },
  {
    name: 'models: empty model',
    inputs: { models: 'openai/' },
    input: 'models',
    form: PAIR
  },
  {
    name: 'models: empty backend',
    inputs: { models: '/gpt-5.4' },
    input: 'models',
    form: PAIR
  },
  {
    name: 'models: unknown backend',
    inputs: { models: 'azure/gpt-4o' },
    input: 'models',
    form: BACKEND
  },
  {
    name: 'models: unknown backend among good ones',
    inputs: { models: 'openai/gpt-5.4, foo/bar' },
    input: 'models',
    form: BACKEND
  },
  {
    name: 'models: duplicate pair',
    inputs: { models: 'openai/gpt-5.4 openai/gpt-5.4' },
    input: 'models',
    form: /listed twice \(each backend\/model pair may appear once\)/
  },
  {
    name: 'models: duplicate pair differing in case of the backend',
    inputs: { models: 'OPENAI/gpt-5.4,\nopenai/gpt-5.4' },
    input: 'models',
    form: /listed twice/
  },
  {
    name: 'models: 65 pairs',
    inputs: { models: pairs(65) },
    input: 'models',
    form: /65 pairs, expected at most 64/
  },
  {
    name: 'models: codex without docker',
    inputs: { models: 'codex/gpt-5-codex', docker: 'false' },
    input: 'models',
    form: /needs Docker mode; remove it or set 'docker: true'/
  },
  {
    name: 'models: claude_code without docker',
    inputs: { models: 'claude_code/sonnet', docker: 'false' },
    input: 'models',
    form: /needs Docker mode/
  },
  {
    name: 'models: vllm without base-url',
    inputs: { models: 'vllm/Qwen/Qwen3-8B' },
    input: 'base-url',
    form: /is required for 'vllm\/Qwen\/Qwen3-8B' \(expected the endpoint's URL/
  },
  {
    name: 'models: chatcompletion without base-url',
    inputs: { models: 'chatcompletion/gpt-4o' },
    input: 'base-url',
    form: /is required for 'chatcompletion\/gpt-4o'/
  },
  {
    name: 'keys: none at all, default models',
    inputs: { models: '', ...NO_KEYS },
    input: 'openai-api-key',
    form: /No API key was given.*Set at least one of the inputs/
  },
  {
    name: 'keys: none for the models named',
    inputs: {
      models: 'grok/grok-4 claude/claude-opus-4-6',
      'xai-api-key': '',
      'anthropic-api-key': ''
    },
    input: 'xai-api-key',
    form: /None of the models in 'models' has its API key/
  },
  // query
  {
    name: 'query: empty on pull_request',
    inputs: { query: '' },
    input: 'query',
    form: /is required on 'pull_request' events \(expected the question/
  },
  {
    name: 'query: only whitespace',
    inputs: { query: ' \n\t ' },
    input: 'query',
    form: /is required/
  },
  {
    name: 'query and query-file both set',
    inputs: { 'query-file': 'q.md' },
    input: 'query-file',
    form: /both set: give only one/
  },
  {
    name: 'query-file: missing',
    inputs: { query: '', 'query-file': 'nope.md' },
    input: 'query-file',
    form: READABLE
  },
  {
    name: 'query-file: absolute path outside the workspace',
    inputs: { query: '', 'query-file': '/etc/hostname' },
    input: 'query-file',
    form: INSIDE
  },
  {
    name: 'query-file: ../ out of the workspace',
    inputs: { query: '', 'query-file': '../event.json' },
    input: 'query-file',
    form: INSIDE
  },
  {
    name: 'query-file: link to a file outside',
    inputs: { query: '', 'query-file': 'link.md' },
    input: 'query-file',
    form: NO_LINK
  },
  {
    name: 'query-file: through a linked folder outside',
    inputs: { query: '', 'query-file': 'etc-link/hostname' },
    input: 'query-file',
    form: NO_LINK
  },
  {
    name: 'query-file: empty file',
    inputs: { query: '', 'query-file': 'empty.md' },
    input: 'query-file',
    form: /is empty/
  },
  {
    name: 'query-file: a folder',
    inputs: { query: '', 'query-file': 'sub' },
    input: 'query-file',
    form: READABLE
  },
  {
    name: 'query-file: larger than one argument may be',
    inputs: { query: '', 'query-file': 'big.md' },
    input: 'query-file',
    form: /the question is 150000 bytes, expected at most 100000/
  },
  // context
  {
    name: 'context-path: missing, relative',
    inputs: { 'context-path': 'no/such/dir' },
    input: 'context-path',
    form: /does not exist \(expected a file or folder, absolute or relative to the workspace\)/
  },
  {
    name: 'context-path: missing, absolute',
    inputs: { 'context-path': '/nonexistent/massgen/ctx' },
    input: 'context-path',
    form: /does not exist/
  },
  {
    name: 'context-permission: rw',
    inputs: { 'context-permission': 'rw' },
    input: 'context-permission',
    form: /expected 'read' or 'write'/
  },
  {
    name: 'context-permission: admin',
    inputs: { 'context-permission': 'admin' },
    input: 'context-permission',
    form: /expected 'read' or 'write'/
  },
  // max-duration
  {
    name: 'max-duration: zero',
    inputs: { 'max-duration': '0' },
    input: 'max-duration',
    form: SECONDS
  },
  {
    name: 'max-duration: negative',
    inputs: { 'max-duration': '-5' },
    input: 'max-duration',
    form: SECONDS
  },
  {
    name: 'max-duration: huge',
    inputs: { 'max-duration': '99999999999999999999' },
    input: 'max-duration',
    form: SECONDS
  },
  {
    name: 'max-duration: past six hours',
    inputs: { 'max-duration': '21601' },
    input: 'max-duration',
    form: SECONDS
  },
  {
    name: 'max-duration: not a number',
    inputs: { 'max-duration': 'abc' },
    input: 'max-duration',
    form: SECONDS
  },
  {
    name: 'max-duration: fraction',
    inputs: { 'max-duration': '1.5' },
    input: 'max-duration',
    form: SECONDS
  },
  {
    name: 'max-duration: exponent',
    inputs: { 'max-duration': '1e3' },
    input: 'max-duration',
    form: SECONDS
  },
  {
    name: 'max-duration: with a unit',
    inputs: { 'max-duration': '30m' },
    input: 'max-duration',
    form: SECONDS
  },
  // base-url
  {
    name: 'base-url: not a URL',
    inputs: { models: 'vllm/m', 'base-url': 'not a url' },
    input: 'base-url',
    form: URL_FORM
  },
  {
    name: 'base-url: ftp',
    inputs: { models: 'vllm/m', 'base-url': 'ftp://host/v1' },
    input: 'base-url',
    form: URL_FORM
  },
  {
    name: 'base-url: no host',
    inputs: { models: 'vllm/m', 'base-url': 'http://' },
    input: 'base-url',
    form: URL_FORM
  },
  // docker
  {
    name: 'docker: yes',
    inputs: { docker: 'yes' },
    input: 'docker',
    form: BOOL
  },
  {
    name: 'docker-image: an option',
    inputs: { 'docker-image': '--privileged' },
    input: 'docker-image',
    form: IMAGE
  },
  {
    name: 'docker-image: spaces and !',
    inputs: { 'docker-image': 'bad image!' },
    input: 'docker-image',
    form: IMAGE
  },
  // comment-tag, trigger, issue-number
  {
    name: 'comment-tag: a space',
    inputs: { 'comment-tag': 'a b' },
    input: 'comment-tag',
    form: TAG
  },
  {
    name: 'comment-tag: ends the HTML comment',
    inputs: { 'comment-tag': '--><script>' },
    input: 'comment-tag',
    form: TAG
  },
  {
    name: 'comment-tag: 65 characters',
    inputs: { 'comment-tag': 'x'.repeat(65) },
    input: 'comment-tag',
    form: TAG
  },
  {
    name: 'trigger: two words',
    inputs: { trigger: 'two words' },
    input: 'trigger',
    form: /expected one word such as '\/massgen'/
  },
  {
    name: 'trigger: a lone slash',
    inputs: { trigger: '/' },
    input: 'trigger',
    form: /expected one word/
  },
  {
    name: 'trigger: HTML',
    inputs: { trigger: '<!--x-->' },
    input: 'trigger',
    form: /expected one word/
  },
  {
    name: 'issue-number: zero',
    inputs: { 'issue-number': '0' },
    input: 'issue-number',
    form: ISSUE
  },
  {
    name: 'issue-number: negative',
    inputs: { 'issue-number': '-3' },
    input: 'issue-number',
    form: ISSUE
  },
  {
    name: 'issue-number: not a number',
    inputs: { 'issue-number': '#12' },
    input: 'issue-number',
    form: ISSUE
  },
  {
    name: 'issue-number: too large',
    inputs: { 'issue-number': '99999999999' },
    input: 'issue-number',
    form: ISSUE
  },
  // massgen-command, massgen-version
  {
    name: 'massgen-command: unbalanced quote',
    inputs: { 'massgen-command': 'node "x' },
    input: 'massgen-command',
    form: COMMAND
  },
  {
    name: 'massgen-command: not found on PATH',
    inputs: { 'massgen-command': 'massgen-nope-4242 --x' },
    input: 'massgen-command',
    form: /'massgen-nope-4242' is not an executable on PATH \(expected a command/
  },
  {
    name: 'massgen-command: missing file',
    inputs: { 'massgen-command': '/nonexistent/bin/massgen' },
    input: 'massgen-command',
    form: /is not an executable file/
  },
  {
    name: 'massgen-command: a folder',
    inputs: { 'massgen-command': '/tmp' },
    input: 'massgen-command',
    form: /is not an executable file/
  },
  {
    name: 'massgen-command: a file that is not executable',
    inputs: { 'massgen-command': './q.md' },
    input: 'massgen-command',
    form: /is not an executable file/
  },
  {
    name: 'massgen-command: empty quotes',
    inputs: { 'massgen-command': '""' },
    input: 'massgen-command',
    form: COMMAND
  },
  {
    name: 'massgen-version: latest',
    inputs: { 'massgen-version': 'latest' },
    input: 'massgen-version',
    form: VERSION
  },
  {
    name: 'massgen-version: shell text',
    inputs: { 'massgen-version': '0.1.97; rm -rf /' },
    input: 'massgen-version',
    form: VERSION
  },
  {
    name: 'massgen-version: a range',
    inputs: { 'massgen-version': '>=0.1' },
    input: 'massgen-version',
    form: VERSION
  },
  // flags and sizes
  {
    name: 'comment: maybe',
    inputs: { comment: 'maybe' },
    input: 'comment',
    form: BOOL
  },
  {
    name: 'job-summary: 1',
    inputs: { 'job-summary': '1' },
    input: 'job-summary',
    form: BOOL
  },
  {
    name: 'pr-context: no',
    inputs: { 'pr-context': 'no' },
    input: 'pr-context',
    form: BOOL
  },
  {
    name: 'upload-logs: yes',
    inputs: { 'upload-logs': 'yes' },
    input: 'upload-logs',
    form: /expected 'true' \(all logs, the agents' command output included\), 'answers-only'/
  },
  {
    name: 'cache-massgen: y',
    inputs: { 'cache-massgen': 'y' },
    input: 'cache-massgen',
    form: BOOL
  },
  {
    name: 'pr-diff-max-bytes: too small',
    inputs: { 'pr-diff-max-bytes': '10' },
    input: 'pr-diff-max-bytes',
    form: /expected bytes from 1000 to 10000000/
  },
  {
    name: 'max-cost: $5',
    inputs: { 'max-cost': '$5' },
    input: 'max-cost',
    form: /expected a positive amount in US dollars such as '2\.50', or 'none' for no cap/
  },
  {
    name: 'max-cost: 0',
    inputs: { 'max-cost': '0' },
    input: 'max-cost',
    form: /expected a positive amount in US dollars/
  },
  {
    name: 'include: a negation',
    inputs: { include: 'src/**\n!src/gen/**' },
    input: 'include',
    form: /is a negation, which include does not take.*expected globs separated by newlines or commas/
  },
  {
    name: 'exclude: an empty negation',
    inputs: { exclude: '*.snap, !' },
    input: 'exclude',
    form: /is an empty pattern \(expected globs separated by newlines or commas/
  }
]

/**
 * The inputs every case starts from: the reliability suite's pull request
 * run (test-support/pr-run.ts), with the defaults the runner fills in.
 */
const GOOD: Record<string, string> = prInputs({
  ...EVERY_KEY_QUICK,
  docker: 'false',
  'accept-local-mode-risk': 'true',
  'github-token': 'ghs_e2eTokenValue00000000000000000000000'
})

/** The pull request's author may write: the gate lets the run through. */
const writer = fakeGitHub({
  ...defaultState(),
  permissions: { octocat: 'write', 'alice-maintainer': 'write' }
}).api

let workspace: string

beforeAll(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'input-errors-'))
  fs.writeFileSync(path.join(workspace, 'q.md'), 'A question from a file\n')
  fs.writeFileSync(path.join(workspace, 'empty.md'), '  \n')
  fs.writeFileSync(path.join(workspace, 'big.md'), 'a'.repeat(150_000))
  fs.mkdirSync(path.join(workspace, 'sub'))
  fs.symlinkSync('/etc/hostname', path.join(workspace, 'link.md'))
  fs.symlinkSync('/etc', path.join(workspace, 'etc-link'))
})

/**
 * The message the main step would fail with on a pull_request event: the
 * first refusal of readSettings, intake and selectAgents, in that order.
 * Anything else thrown would reach the runner as 'Unexpected error'.
 */
async function refusal(inputs: Record<string, string>): Promise<string> {
  const all = { ...GOOD, ...inputs }
  try {
    const settings = readSettings({
      getInput: (name) => all[name] ?? '',
      env: { PATH: process.env.PATH },
      workspace
    })
    const trigger = readTrigger(
      'pull_request',
      event('pull_request.opened'),
      'octocat'
    )
    const agents = chooseAgents(settings)
    await intake(settings, trigger, () => writer, agents)
    if ('error' in agents) throw agents.error
  } catch (error) {
    if (
      error instanceof InputError ||
      error instanceof IntakeError ||
      error instanceof ModelsError
    )
      return error.message
    throw error
  }
  throw new Error(`accepted: ${JSON.stringify(inputs)}`)
}

describe('bad inputs: the refusal names the input and the expected form', () => {
  it('has at least 40 distinct cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40)
    expect(new Set(CASES.map((c) => JSON.stringify(c.inputs))).size).toBe(
      CASES.length
    )
  })

  it('accepts the inputs every case starts from', async () => {
    await expect(refusal({})).rejects.toThrow('accepted')
  })

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const message = await refusal(c.inputs)
    expect(message).toContain(c.input)
    expect(message).toMatch(c.form)
    expect(message).not.toMatch(/Unexpected error|undefined|\[object/)
    for (const key of Object.values(KEYS)) expect(message).not.toContain(key)
    tally('badInputs', 1, c.name)
  })
})
