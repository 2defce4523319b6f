import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  InputError,
  readSettings,
  splitCommand
} from '../../src/inputs/settings.js'

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'settings-'))
fs.writeFileSync(path.join(workspace, 'q.md'), 'Review the README\n')
fs.mkdirSync(path.join(workspace, 'src'))

function read(inputs: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  return readSettings({ getInput: (n) => inputs[n] ?? '', env, workspace })
}

describe('readSettings', () => {
  it('applies the defaults', () => {
    const s = read({ query: 'hi' })
    expect(s).toMatchObject({
      query: 'hi',
      models: [],
      docker: true,
      dockerImage: 'ghcr.io/massgen/mcp-runtime-sudo:latest',
      maxDurationSeconds: 1800,
      contextPath: fs.realpathSync(workspace),
      contextPermission: 'read',
      massgenVersion: '0.1.97',
      massgenCommand: undefined,
      comment: true,
      commentTag: 'massgen',
      jobSummary: true,
      trigger: '/massgen',
      issueNumber: undefined,
      allowedBots: [],
      allowedUsers: [],
      allowForkPullRequestTarget: false
    })
  })
  it('reads the allow-lists and the fork opt-in', () => {
    expect(
      read({
        'allowed-users': 'octocat, Hubot  mona_emu',
        'allowed-bots': 'renovate[bot],dependabot',
        'allow-fork-pull-request-target': 'true'
      })
    ).toMatchObject({
      allowedUsers: ['octocat', 'Hubot', 'mona_emu'],
      allowedBots: ['renovate[bot]', 'dependabot'],
      allowForkPullRequestTarget: true
    })
  })
  it('refuses a wildcard in allowed-users and allowed-bots, naming the input', () => {
    for (const name of ['allowed-users', 'allowed-bots']) {
      for (const value of ['*', 'octocat, *', '*[bot]']) {
        expect(() => read({ [name]: value })).toThrow(
          new RegExp(
            `Input '${name}': '\\*(\\[bot\\])?' is a wildcard, which is not allowed`
          )
        )
      }
    }
  })
  it('refuses bots and malformed logins in allowed-users', () => {
    expect(() => read({ 'allowed-users': 'renovate[bot]' })).toThrow(
      "Input 'allowed-users': 'renovate[bot]' is a bot; list bots in 'allowed-bots'"
    )
    expect(() => read({ 'allowed-users': 'a/b' })).toThrow(
      "Input 'allowed-users': got 'a/b', expected GitHub user logins"
    )
    expect(() => read({ 'allow-fork-pull-request-target': 'yes' })).toThrow(
      "Input 'allow-fork-pull-request-target': got 'yes', expected 'true' or 'false'"
    )
  })
  it('reads keys from inputs first, then the environment', () => {
    const s = read(
      { 'openai-api-key': 'sk-input' },
      { OPENAI_API_KEY: 'sk-env', GEMINI_API_KEY: 'AIza-env', XAI_API_KEY: ' ' }
    )
    expect(s.keys).toEqual({ openai: 'sk-input', google: 'AIza-env' })
  })
  it('reads query-file inside the workspace', () => {
    expect(read({ 'query-file': 'q.md' }).query).toBe('Review the README')
  })
  it('reads a query-file whose name starts with two dots: it is still inside', () => {
    fs.writeFileSync(path.join(workspace, '..question.md'), 'Dotted?\n')
    expect(read({ 'query-file': '..question.md' }).query).toBe('Dotted?')
  })
  it('resolves context-path against the workspace', () => {
    expect(read({ 'context-path': 'src' }).contextPath).toBe(
      fs.realpathSync(path.join(workspace, 'src'))
    )
  })
  it('splits massgen-command without a shell', () => {
    const env = { PATH: path.dirname(process.execPath) }
    expect(
      read({ 'massgen-command': 'node "massgen==0.1.97" --x' }, env)
        .massgenCommand
    ).toEqual(['node', 'massgen==0.1.97', '--x'])
    expect(splitCommand("a 'b c' $(rm -rf /)")).toEqual({
      refused: "a '$' a shell would expand"
    })
  })
  it.each([
    [
      'uvx massgen --config="a b.yaml"',
      ['uvx', 'massgen', '--config=a b.yaml']
    ],
    ["x 'it''s' \"q \\\" d\"", ['x', 'its', 'q " d']],
    ['x a\\ b', ['x', 'a b']],
    ["x '$HOME' *.yaml", ['x', '$HOME', '*.yaml']]
  ])('splits %s as a shell would, expanding nothing', (text, words) => {
    expect(splitCommand(text)).toEqual(words)
  })
  it.each([
    ['massgen | tee log', "the shell operator '|'"],
    ['massgen; rm -rf /', "the shell operator ';'"],
    ['massgen && x', "the shell operator '&&'"],
    ['massgen > out', "the shell operator '>'"],
    ['massgen # note', "a comment ('# note')"],
    ['massgen $HOME', "the variable '$HOME' (no shell expands it)"],
    ['massgen "--x=${TOKEN}"', "the variable '$TOKEN' (no shell expands it)"]
  ])('refuses %s, naming what is not a word', (text, refused) => {
    expect(splitCommand(text)).toEqual({ refused })
    const env = { PATH: path.dirname(process.execPath) }
    expect(() =>
      read({ 'massgen-command': text.replace('massgen', 'node') }, env)
    ).toThrow(`Input 'massgen-command': ${refused}`)
  })
  it('reports every bad input at once, each naming the input and the form', () => {
    let error: unknown
    try {
      read({
        docker: 'yes',
        'max-duration': '-5',
        'context-permission': 'admin'
      })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(InputError)
    const lines = (error as Error).message.split('\n')
    expect(lines).toEqual([
      "Input 'docker': got 'yes', expected 'true' or 'false'",
      "Input 'max-duration': got '-5', expected whole seconds from 1 to 21600",
      "Input 'context-permission': got 'admin', expected 'read' or 'write'"
    ])
  })
  it.each([
    [{ 'query-file': '../etc/passwd' }, /'query-file'.*outside the workspace/],
    [{ 'query-file': 'missing.md' }, /'query-file': cannot read/],
    [{ query: 'a', 'query-file': 'q.md' }, /both set/],
    [{ 'context-path': 'nope' }, /'context-path'.*does not exist/],
    [{ 'base-url': 'ftp://x' }, /'base-url'/],
    [{ 'massgen-version': 'latest' }, /'massgen-version'/],
    [{ 'comment-tag': 'a b' }, /'comment-tag'/],
    [{ 'issue-number': '0' }, /'issue-number'/],
    [{ 'max-duration': '1e9' }, /'max-duration'/],
    [{ 'massgen-command': 'massgen "oops' }, /'massgen-command'.*unbalanced/],
    [
      { 'agent-commands': 'sometimes' },
      /Input 'agent-commands': got 'sometimes', expected 'auto', 'true' or 'false'/
    ]
  ])('rejects %j', (inputs, message) => {
    expect(() => read(inputs)).toThrow(message)
  })
  it("agent-commands: 'auto' unless set, 'true'/'false' (any case) as booleans", () => {
    expect(read({}).agentCommands).toBe('auto')
    expect(read({ 'agent-commands': ' TRUE ' }).agentCommands).toBe(true)
    expect(read({ 'agent-commands': 'false' }).agentCommands).toBe(false)
  })
})
