// Judging runs from MassGen 0.1.97's real log folders (__fixtures__/massgen/).
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { readRunFiles } from '../../src/results/log-files.js'
import {
  judgeRun,
  readThePullRequest,
  type RunFacts
} from '../../src/results/results.js'
import { renderReport } from '../../src/report/render.js'
import { reviewAnswers } from '../../src/review/review.js'
import type { AgentPlan } from '../../src/core/types.js'

const FIXTURES = path.join(process.cwd(), '__fixtures__', 'massgen')

function agents(n: number): AgentPlan[] {
  return ['a', 'b', 'c'].slice(0, n).map((x) => ({
    id: `agent_${x}`,
    backend: 'vllm',
    model: `model-${x}`,
    keyEnvVars: []
  }))
}

/** A live copy of a recorded log folder. */
function logDirOf(scenario: string): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), `fixture-${scenario}-`))
  fs.cpSync(path.join(FIXTURES, scenario, 'logs'), copy, { recursive: true })
  const log = fs.readdirSync(copy).find((n) => n.startsWith('log_'))
  return path.join(copy, log ?? '')
}

function judge(scenario: string, n: number, extra: Partial<RunFacts> = {}) {
  const logDir = logDirOf(scenario)
  const plan = agents(n)
  return judgeRun({
    question: 'What is 2+2? Ping @octocat.',
    agents: plan,
    exitCode: 0,
    signal: null,
    timedOut: false,
    cancelled: false,
    maxDurationSeconds: 120,
    logDir,
    files: readRunFiles(
      logDir,
      plan.map((a) => a.id)
    ),
    configErrors: [],
    wallSeconds: 9,
    ...extra
  })
}

describe('judgeRun on recorded runs', () => {
  it('success with two agents', () => {
    const r = judge('success-2-agents', 2)
    expect(r.outcome).toBe('success')
    expect(r.winner).toBe('agent_a')
    expect(r.winnerAnswer).toMatch(/\S/)
    expect(r.votes).toEqual({ 'agent1.1': 2 })
    expect(
      r.agents.map((a) => [a.id, a.answerLabel, a.votesReceived, a.votedFor])
    ).toEqual([
      ['agent_a', 'agent1.1', 2, 'agent_a'],
      ['agent_b', 'agent2.1', 0, 'agent_a']
    ])
    expect(r.agents.every((a) => a.answer && a.voteReason)).toBe(true)
    expect(r.inputTokens).toBeGreaterThan(0)
  })
  it('split votes with three agents', () => {
    const r = judge('split-3-agents', 3)
    expect(r.outcome).toBe('success')
    expect(r.winner).toBe('agent_b')
    expect(r.agents.map((a) => a.votesReceived)).toEqual([1, 2, 0])
  })
  it('one agent failing while the others finish', () => {
    const r = judge('partial-failure', 3)
    expect(r.outcome).toBe('success')
    const failed = r.agents.find((a) => a.id === 'agent_b')
    expect(failed?.status).toBe('error')
    expect(failed?.error).toMatch(/\S/)
  })
  it('every agent failing: exit 0 but failed', () => {
    const r = judge('total-failure', 2)
    expect(r.outcome).toBe('failed')
    expect(r.reason).toMatch(/chose no winner: every agent failed/)
    expect(r.agents[0]?.error).toMatch(/Error code: 500/)
    expect(r.winner).toBeUndefined()
  })
  it("MassGen's own timeout with no answer (issue 44's real run: exit 0, status.json left in_progress, past max-duration): timeout, not 'chose no winner'", () => {
    // the recorded run left status.json in_progress with no winner, as the
    // real model's run did; that run had gone past max-duration
    const r = judge('total-failure', 2, {
      wallSeconds: 130,
      maxDurationSeconds: 120
    })
    expect(r.outcome).toBe('timeout')
    expect(r.reason).toMatch(
      /MassGen's own timeout \(120 s\) ended the run with no answer/
    )
    // before max-duration the same files are a failure
    expect(judge('total-failure', 2).outcome).toBe('failed')
  })
  it("MassGen's own timeout: is_complete true but timeout", () => {
    const r = judge('timeout', 2)
    expect(r.outcome).toBe('timeout')
    expect(r.reason).toMatch(/orchestrator timeout/)
  })
  it('our deadline with SIGINT: timeout with the partial state', () => {
    const r = judge('timeout-sigint', 2, { timedOut: true })
    expect(r.outcome).toBe('timeout')
    expect(r.phase).toBeDefined()
  })
  it("a real model's 1-1 tie (local-model-tie): MassGen names a winner, the action names a tie", () => {
    const r = judge('local-model-tie', 2)
    expect(r.outcome).toBe('success')
    expect(r.winner).toBe('agent_a')
    expect(r.decision).toEqual({
      kind: 'tie',
      agents: ['agent_a', 'agent_b'],
      votes: 1
    })
  })
  it('a clear majority is a consensus', () => {
    expect(judge('success-2-agents', 2).decision).toEqual({ kind: 'consensus' })
  })
  it('every agent in error and no vote, yet a winner named: failed, saying no agent voted', () => {
    const logDir = logDirOf('local-model-tie')
    const status = path.join(logDir, 'turn_1', 'attempt_1', 'status.json')
    // what the real model's runs left (issue 44): both agents in error, no vote
    const s = JSON.parse(fs.readFileSync(status, 'utf8')) as {
      agents: Record<string, Record<string, unknown>>
      results: { votes: Record<string, number> }
    }
    for (const agent of Object.values(s.agents)) {
      agent.status = 'error'
      agent.error = {
        type: 'workflow',
        message: 'failed to use workflow tools after 3 attempts'
      }
      delete agent.vote_cast
    }
    s.results.votes = {}
    fs.writeFileSync(status, JSON.stringify(s))
    for (const agent of ['agent_a', 'agent_b'])
      for (const run of fs.readdirSync(
        path.join(logDir, 'turn_1', 'attempt_1', agent)
      ))
        fs.rmSync(
          path.join(logDir, 'turn_1', 'attempt_1', agent, run, 'vote.json'),
          { force: true }
        )
    const plan = agents(2)
    const r = judgeRun({
      question: 'Review this pull request.',
      agents: plan,
      exitCode: 0,
      signal: null,
      timedOut: false,
      cancelled: false,
      maxDurationSeconds: 1800,
      logDir,
      files: readRunFiles(
        logDir,
        plan.map((a) => a.id)
      ),
      configErrors: [],
      wallSeconds: 9
    })
    expect(r.winner).toBe('agent_a')
    expect(r.decision).toEqual({ kind: 'no-votes' })
    expect(r.outcome).toBe('failed')
    expect(r.reason).toMatch(/no agent voted: every agent failed/)
  })
  it("the agents' reads come from MassGen's events.jsonl (local-model-tie: both read the pull request's diff.patch)", () => {
    const r = judge('local-model-tie', 2)
    expect(Object.keys(r.filesRead ?? {}).sort()).toEqual([
      'agent_a',
      'agent_b'
    ])
    for (const paths of Object.values(r.filesRead ?? {}))
      for (const p of paths) expect(p).toMatch(/\/pr-context\/diff\.patch$/)
    const pr = {
      number: 42,
      headSha: 'h',
      diff: '',
      diffTruncated: false,
      files: ['src/parser.ts'],
      ownTexts: []
    }
    expect(readThePullRequest({ ...r, pullRequest: pr })).toBe(true)
    expect(readThePullRequest(r)).toBeUndefined()
  })
  it("agents that read only the instructions' example path (issue 44's real runs): the report says they read none of the pull request's files", () => {
    const logDir = logDirOf('local-model-tie')
    const events = path.join(logDir, 'turn_1', 'attempt_1', 'events.jsonl')
    fs.writeFileSync(
      events,
      fs
        .readFileSync(events, 'utf8')
        .replaceAll(
          '{{CWD}}/pr-context/diff.patch',
          'path/changed/in/the/pull/request.ts'
        )
    )
    const plan = agents(2)
    const r = judgeRun({
      question: 'Review this pull request.',
      agents: plan,
      exitCode: 0,
      signal: null,
      timedOut: false,
      cancelled: false,
      maxDurationSeconds: 1800,
      logDir,
      files: readRunFiles(
        logDir,
        plan.map((a) => a.id)
      ),
      configErrors: [],
      wallSeconds: 9
    })
    const pr = {
      number: 42,
      headSha: 'h',
      diff: '',
      diffTruncated: false,
      files: ['src/parser.ts', 'README.md'],
      ownTexts: []
    }
    const result = { ...r, pullRequest: pr }
    expect(readThePullRequest(result)).toBe(false)
    const md = renderReport(result, {
      target: 'comment',
      tag: 'massgen',
      secrets: [],
      maxChars: 60_000
    })
    expect(md).toContain("The agents read none of the pull request's files")
    expect(
      renderReport(judge('local-model-tie', 2), {
        target: 'comment',
        tag: 'massgen',
        secrets: [],
        maxChars: 60_000
      })
    ).not.toContain('read none')
  })
  it("the review reads the answers the agents voted on, not the presenter's rewrite (local-model-tie: agent_a's final presentation raised a finding its voted answer never had)", () => {
    const r = judge('local-model-tie', 2)
    const own = r.agents.find((a) => a.id === 'agent_a')?.answer ?? ''
    expect(r.winnerAnswer).not.toBe(own)
    const read = reviewAnswers(r).find((a) => a.agent === 'agent_a')?.text
    expect(read).toBe(own)
    expect(read).not.toContain('Premiering')
  })
  it('cancelled wins over everything', () => {
    expect(judge('success-2-agents', 2, { cancelled: true }).outcome).toBe(
      'cancelled'
    )
  })
  it('exit 1 without a log folder is a config error', () => {
    const r = judgeRun({
      question: 'q',
      agents: agents(2),
      exitCode: 1,
      signal: null,
      timedOut: false,
      cancelled: false,
      maxDurationSeconds: 60,
      files: {
        statusUnreadable: false,
        answers: {},
        votes: {},
        answersTruncated: false
      },
      configErrors: ["❌ [agents[0].backend.type] Unknown backend type: 'x'"],
      wallSeconds: 7
    })
    expect(r.outcome).toBe('config-error')
    expect(r.configErrors).toHaveLength(1)
  })
  it('a missing winner answer file fails', () => {
    const logDir = logDirOf('success-2-agents')
    for (const dir of [
      path.join(logDir, 'turn_1', 'final'),
      path.join(logDir, 'turn_1', 'attempt_1', 'final')
    ]) {
      fs.rmSync(dir, { recursive: true, force: true })
    }
    const plan = agents(2)
    const r = judgeRun({
      question: 'q',
      agents: plan,
      exitCode: 0,
      signal: null,
      timedOut: false,
      cancelled: false,
      maxDurationSeconds: 60,
      logDir,
      files: readRunFiles(
        logDir,
        plan.map((a) => a.id)
      ),
      configErrors: [],
      wallSeconds: 1
    })
    expect(r.outcome).toBe('failed')
    expect(r.reason).toMatch(/answer file is missing/)
  })
})

/**
 * A review's answers' run without MassGen's final presentation (plan/config.ts
 * IDLE_PRESENTATION), recorded by the price bench: status.json left
 * `in_progress` with no winner, every agent voted, MassGen printed
 * `WINNER: agent_a`. `edit` changes the copy before it is read.
 */
function judgeWithoutPresentation(
  extra: Partial<RunFacts> = {},
  edit: (attemptDir: string) => void = () => {}
) {
  const logDir = logDirOf('no-presentation-2-agents')
  const attemptDir = path.join(logDir, 'turn_1', 'attempt_1')
  edit(attemptDir)
  const plan = agents(2)
  return judgeRun({
    question: 'Review this pull request.',
    agents: plan,
    exitCode: 0,
    signal: null,
    timedOut: false,
    cancelled: false,
    maxDurationSeconds: 600,
    logDir,
    files: readRunFiles(
      logDir,
      plan.map((a) => a.id)
    ),
    configErrors: [],
    wallSeconds: 20,
    withoutPresentation: true,
    ...extra
  })
}

/** The parts of the recorded status.json the tests change. */
interface RecordedStatus {
  finish_reason?: string
  is_complete?: boolean
  results: { votes: Record<string, number> }
  agents: Record<
    string,
    {
      status?: string
      error?: { type: string; message: string }
      vote_cast?: { voted_for_agent: string; voted_for_label: string }
    }
  >
}

/** Rewrites the recorded status.json. */
function editStatus(
  attemptDir: string,
  change: (status: RecordedStatus) => void
) {
  const file = path.join(attemptDir, 'status.json')
  const status = JSON.parse(fs.readFileSync(file, 'utf8')) as RecordedStatus
  change(status)
  fs.writeFileSync(file, JSON.stringify(status))
}

/** One recorded agent's status (both are in the recording). */
const agentOf = (status: RecordedStatus, id: string) => {
  const agent = status.agents[id]
  if (!agent) throw new Error(`no ${id} in the recorded status.json`)
  return agent
}

describe('judgeRun without a final presentation', () => {
  it("names the winner from the votes, by MassGen's rule, and shows its own answer", () => {
    const r = judgeWithoutPresentation()
    expect(r.outcome).toBe('success')
    expect(r.winner).toBe('agent_a')
    expect(r.decision).toEqual({ kind: 'consensus' })
    expect(r.winnerAnswer).toBe(r.agents[0]?.answer)
    expect(r.winnerAnswer).toMatch(/massgen-findings/)
    expect(r.agents.map((a) => [a.id, a.votesReceived, a.votedFor])).toEqual([
      ['agent_a', 2, 'agent_a'],
      ['agent_b', 0, 'agent_a']
    ])
  })
  it('a run not told to skip it keeps its judgement: no winner, failed', () => {
    const r = judgeWithoutPresentation({ withoutPresentation: false })
    expect(r.outcome).toBe('failed')
    expect(r.reason).toMatch(/chose no winner/)
  })
  it('a 1-1 tie goes to the first agent of the config, as MassGen breaks it, and is named a tie', () => {
    const r = judgeWithoutPresentation({}, (dir) =>
      editStatus(dir, (status) => {
        status.results.votes = { 'agent1.1': 1, 'agent2.1': 1 }
        agentOf(status, 'agent_b').vote_cast = {
          voted_for_agent: 'agent_b',
          voted_for_label: 'agent2.1'
        }
      })
    )
    expect(r.outcome).toBe('success')
    expect(r.winner).toBe('agent_a')
    expect(r.decision).toEqual({
      kind: 'tie',
      agents: ['agent_a', 'agent_b'],
      votes: 1
    })
  })
  it('the most votes win, whichever agent comes first', () => {
    const r = judgeWithoutPresentation({}, (dir) =>
      editStatus(dir, (status) => {
        status.results.votes = { 'agent2.1': 2 }
        for (const id of ['agent_a', 'agent_b'])
          agentOf(status, id).vote_cast = {
            voted_for_agent: 'agent_b',
            voted_for_label: 'agent2.1'
          }
      })
    )
    expect(r.outcome).toBe('success')
    expect(r.winner).toBe('agent_b')
    expect(r.winnerAnswer).toBe(r.agents[1]?.answer)
  })
  it('an agent that has not voted: MassGen did not end its coordination, so no winner (failed)', () => {
    const r = judgeWithoutPresentation({}, (dir) =>
      editStatus(dir, (status) => {
        agentOf(status, 'agent_b').status = 'answered'
        delete agentOf(status, 'agent_b').vote_cast
        fs.rmSync(path.join(dir, 'agent_b', '20261207_035730_318671'), {
          recursive: true
        })
      })
    )
    expect(r.outcome).toBe('failed')
    expect(r.winner).toBeUndefined()
  })
  it('an agent in error: failed, no winner named', () => {
    const r = judgeWithoutPresentation({}, (dir) =>
      editStatus(dir, (status) => {
        agentOf(status, 'agent_b').error = {
          type: 'api_error',
          message: 'HTTP 500'
        }
      })
    )
    expect(r.outcome).toBe('failed')
    expect(r.winner).toBeUndefined()
  })
  it("MassGen's own timeout still ends it as a timeout", () => {
    const r = judgeWithoutPresentation({}, (dir) =>
      editStatus(dir, (status) => {
        status.finish_reason = 'timeout'
        status.is_complete = true
      })
    )
    expect(r.outcome).toBe('timeout')
  })
})

/** When the recorded run's MassGen ended, in its local time (ended-at.txt). */
function endedAt(scenario: string): number {
  return new Date(
    fs
      .readFileSync(path.join(FIXTURES, scenario, 'ended-at.txt'), 'utf8')
      .trim()
  ).getTime()
}

describe('a run out of time: a hang told from a slow model (issue 44)', () => {
  it('the model server answered each agent once, then never again (stalled-model): no model activity for the last ~58 s', () => {
    const r = judge('stalled-model', 2, {
      maxDurationSeconds: 60,
      endedAtMs: endedAt('stalled-model')
    })
    expect(r.outcome).toBe('timeout')
    expect(r.reason).toMatch(/orchestrator timeout \(60 s\)/)
    expect(r.reason).toMatch(
      /No model activity for the last (5\d(\.\d)?) s of the run \(60(\.\d)? s\): the last of 2 model replies, agent_a's, came 5\d(\.\d)? s before the end, and nothing after/
    )
    expect(r.reason).toMatch(/A hang, not a slow model/)
  })
  it('every reply 25 s late (slow-model): the models answered until the end, a slow model', () => {
    const r = judge('slow-model', 2, {
      maxDurationSeconds: 60,
      endedAtMs: endedAt('slow-model')
    })
    expect(r.outcome).toBe('timeout')
    expect(r.reason).toMatch(
      /The agents were still working: the last of 4 model replies, agent_a's, came \d(\.\d)? s before the end of the run \(60(\.\d)? s\)/
    )
    expect(r.reason).toMatch(/A slow model, not a hang/)
  })
  it('the recording with no events.jsonl (timeout) claims neither', () => {
    const r = judge('timeout', 2, { endedAtMs: Date.now() })
    expect(r.outcome).toBe('timeout')
    expect(r.reason).not.toMatch(/model activity|still working/)
  })
  it('our own deadline on the stalled run, its timeout event left out: the quiet to our end', () => {
    const logDir = logDirOf('stalled-model')
    const events = path.join(logDir, 'turn_1', 'attempt_1', 'events.jsonl')
    const lines = fs.readFileSync(events, 'utf8').split('\n')
    const cut = lines.findIndex((l) => l.includes('"orchestrator_timeout"'))
    fs.writeFileSync(events, lines.slice(0, cut).join('\n'))
    const plan = agents(2)
    const r = judgeRun({
      question: 'q',
      agents: plan,
      exitCode: null,
      signal: 'SIGKILL',
      timedOut: true,
      cancelled: false,
      maxDurationSeconds: 60,
      logDir,
      files: readRunFiles(
        logDir,
        plan.map((a) => a.id)
      ),
      configErrors: [],
      wallSeconds: 120,
      endedAtMs: endedAt('stalled-model')
    })
    expect(r.outcome).toBe('timeout')
    expect(r.reason).toMatch(/did not finish within max-duration/)
    expect(r.reason).toMatch(/No model activity for the last 6\d(\.\d)? s/)
  })
})

describe("a request over the model's context (issue 44)", () => {
  it("agent_b's model answered HTTP 400 'maximum context length' (context-overflow): agent_b named with the cause", () => {
    const r = judge('context-overflow', 2)
    expect(r.outcome).toBe('success')
    const b = r.agents.find((a) => a.id === 'agent_b')
    expect(b?.status).toBe('error')
    expect(b?.contextOverflow).toMatch(/maximum context length is 2048 tokens/)
    expect(r.agents.find((a) => a.id === 'agent_a')?.contextOverflow).toBe(
      undefined
    )
    const report = renderReport(r, {
      target: 'comment',
      tag: 'massgen',
      secrets: [],
      maxChars: 60_000
    })
    expect(report).toContain(
      "⚠️ **agent_b failed: its request was over its model's context.**"
    )
  })
  it('the cause read from events.jsonl when status.json kept no API error', () => {
    const logDir = logDirOf('context-overflow')
    const status = path.join(logDir, 'turn_1', 'attempt_1', 'status.json')
    const s = JSON.parse(fs.readFileSync(status, 'utf8')) as {
      agents: Record<string, Record<string, unknown>>
    }
    for (const agent of Object.values(s.agents)) delete agent.reliability
    fs.writeFileSync(status, JSON.stringify(s))
    const plan = agents(2)
    const files = readRunFiles(
      logDir,
      plan.map((a) => a.id)
    )
    const r = judgeRun({
      question: 'q',
      agents: plan,
      exitCode: 0,
      signal: null,
      timedOut: false,
      cancelled: false,
      maxDurationSeconds: 120,
      logDir,
      files,
      configErrors: [],
      wallSeconds: 9
    })
    expect(r.agents.find((a) => a.id === 'agent_b')?.contextOverflow).toMatch(
      /maximum context length/
    )
  })
  it('every agent over its context: the failure says so, agent by agent', () => {
    const logDir = logDirOf('context-overflow')
    const status = path.join(logDir, 'turn_1', 'attempt_1', 'status.json')
    const s = JSON.parse(fs.readFileSync(status, 'utf8')) as {
      agents: Record<string, Record<string, unknown>>
      results?: unknown
    }
    const b = s.agents.agent_b ?? {}
    s.agents.agent_a = { ...b }
    s.results = { winner: null, votes: {} }
    fs.writeFileSync(status, JSON.stringify(s))
    const plan = agents(2)
    const r = judgeRun({
      question: 'q',
      agents: plan,
      exitCode: 0,
      signal: null,
      timedOut: false,
      cancelled: false,
      maxDurationSeconds: 120,
      logDir,
      files: readRunFiles(
        logDir,
        plan.map((a) => a.id)
      ),
      configErrors: [],
      wallSeconds: 9
    })
    expect(r.outcome).toBe('failed')
    expect(r.reason).toMatch(
      /every agent failed \(agent_a: its request was over its model's context; .*agent_b: its request was over its model's context/
    )
  })
})

describe('readRunFiles', () => {
  it('never follows a link out of LOG_DIR', () => {
    const logDir = logDirOf('success-2-agents')
    const answerDir = path.join(
      logDir,
      'turn_1',
      'attempt_1',
      'agent_b',
      '29991231_000000_000000'
    )
    fs.mkdirSync(answerDir, { recursive: true })
    fs.symlinkSync('/etc/passwd', path.join(answerDir, 'answer.txt'))
    const files = readRunFiles(logDir, ['agent_a', 'agent_b'])
    expect(files.answers.agent_b).not.toMatch(/root:/)
  })
  it('caps an answer at 1 MiB', () => {
    const logDir = logDirOf('success-2-agents')
    const dir = path.join(
      logDir,
      'turn_1',
      'attempt_1',
      'agent_a',
      '29991231_000000_000000'
    )
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'answer.txt'), 'é'.repeat(1024 * 1024))
    const files = readRunFiles(logDir, ['agent_a'])
    expect(Buffer.byteLength(files.answers.agent_a ?? '')).toBeLessThanOrEqual(
      1024 * 1024
    )
    expect(files.answers.agent_a?.endsWith('é')).toBe(true)
    expect(files.answersTruncated).toBe(true)
  })
})
