#!/usr/bin/env node
// A stand-in for the `massgen` CLI for fault scenarios that the real MassGen
// cannot be made to produce on demand (crash, hang, spoofed output, broken
// status.json), and for runs whose agents answer and vote as a test scripts
// them (`scripted`), where the test proves what the action does with the
// answers. Its output lines, log folder and status.json copy the shapes
// MassGen 0.1.97 really writes (see __fixtures__/massgen/). The scenario comes
// from FAKE_MASSGEN_SCENARIO; FAKE_MASSGEN_RECORD names a file that receives
// the argument array, the config file's text (the action removes the file
// when the run ends) and the NAMES (never values) of the key variables seen.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'

const scenario = process.env.FAKE_MASSGEN_SCENARIO || 'success'
const args = process.argv.slice(2)
const question = args[args.indexOf('--') + 1] ?? ''
const configFile = args[args.indexOf('--config') + 1] ?? ''
const keyVars = [
  'OPENAI_API_KEY',
  'GOOGLE_API_KEY',
  'GEMINI_API_KEY',
  'ANTHROPIC_API_KEY',
  'XAI_API_KEY',
  'OPENROUTER_API_KEY'
]

if (process.env.FAKE_MASSGEN_RECORD) {
  fs.writeFileSync(
    process.env.FAKE_MASSGEN_RECORD,
    JSON.stringify({
      args,
      config: fs.readFileSync(configFile, 'utf8'),
      cwd: process.cwd(),
      keys: keyVars.filter((k) => process.env[k]),
      // Names of variables that are or hold a token (matrix-review.test.ts).
      tokenVars: Object.keys(process.env).filter(
        (k) =>
          /TOKEN|^GH_/.test(k) ||
          /(gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}/.test(process.env[k] ?? '')
      )
    })
  )
}

// FAKE_MASSGEN_READ (JSON {from, to}): what an agent reading the context
// path sees of one file, copied out for the test (`(missing)` if none).
if (process.env.FAKE_MASSGEN_READ) {
  const { from, to } = JSON.parse(process.env.FAKE_MASSGEN_READ)
  let seen = '(missing)'
  try {
    seen = fs.readFileSync(from, 'utf8')
  } catch {
    // Reported as missing.
  }
  fs.writeFileSync(to, seen)
}

// FAKE_MASSGEN_BALLOTS (JSON `{ <agent id>: text }`): what each agent answers
// in the finding vote's round (its config skips MassGen's vote:
// src/plan/config.ts BALLOT_RUN), in place of its answer; an agent it does
// not name answers as in the first round.
const ballots = /^\s*skip_voting: true$/m.test(
  fs.readFileSync(configFile, 'utf8')
)
  ? JSON.parse(process.env.FAKE_MASSGEN_BALLOTS ?? '{}')
  : {}
/** An agent's answer in this run: its ballot in the vote round, else `first`. */
const answerIn = (id, first) => ballots[id] ?? first

const agentIds = [
  ...fs.readFileSync(configFile, 'utf8').matchAll(/- id: (\w+)/g)
].map((m) => m[1])
const stamp = '20261130_120000_000001'
const logDir = path.resolve('.massgen/massgen_logs', `log_${stamp}`)
const attempt = path.join(logDir, 'turn_1', 'attempt_1')
const statusFile = path.join(attempt, 'status.json')
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

function writeStatus(fields) {
  if (statusIsFifo) return
  fs.mkdirSync(attempt, { recursive: true })
  const agents = Object.fromEntries(
    agentIds.map((id, i) => [
      id,
      {
        status: fields.agentStatus ?? 'voted',
        answer_count: fields.noAnswers ? 0 : 1,
        latest_answer_label: fields.noAnswers ? null : `agent${i + 1}.1`,
        vote_cast: fields.noVotes
          ? null
          : {
              voted_for_agent: agentIds[0],
              voted_for_label: 'agent1.1',
              reason_preview: `Vote from ${id}`
            },
        times_restarted: 0,
        error: fields.agentError
          ? { type: 'api_error', message: fields.agentError, timestamp: 0 }
          : null,
        token_usage: {
          input_tokens: 100,
          output_tokens: 20,
          reasoning_tokens: 0,
          cached_input_tokens: 0,
          estimated_cost: 0.001
        }
      }
    ])
  )
  const status = {
    finish_reason: fields.finish ?? 'completed',
    finish_reason_details: fields.details ?? null,
    is_complete: fields.complete ?? true,
    meta: {
      question,
      start_time: Date.now() / 1000,
      elapsed_seconds: 1.5,
      log_dir: path.relative(process.cwd(), attempt)
    },
    costs: {
      total_estimated_cost: 0.0123,
      total_input_tokens: 1200,
      total_output_tokens: 340
    },
    coordination: {
      phase: fields.phase ?? 'presentation',
      active_agent: null,
      completion_percentage: fields.pct ?? 100,
      is_final_presentation: true
    },
    agents,
    results: {
      votes: fields.noVotes ? {} : { 'agent1.1': agentIds.length },
      winner: fields.winner === undefined ? agentIds[0] : fields.winner,
      final_answer_preview: 'preview'
    }
  }
  fs.writeFileSync(statusFile, fields.raw ?? JSON.stringify(status, null, 2))
}

/**
 * The scripted answer: FAKE_MASSGEN_ANSWER when a wrapper set it in this
 * process (hostile-agent.mjs, env-agent.mjs), else the file the test kit
 * wrote the test's answer to (FAKE_MASSGEN_ANSWER_FILE: test-support/run-action.ts).
 */
function scriptedAnswer(fallback) {
  if (process.env.FAKE_MASSGEN_ANSWER !== undefined)
    return process.env.FAKE_MASSGEN_ANSWER
  const file = process.env.FAKE_MASSGEN_ANSWER_FILE
  return file ? fs.readFileSync(file, 'utf8') : fallback
}

function writeAnswers() {
  agentIds.forEach((id, i) => {
    const dir = path.join(attempt, id, `20261130_12000${i}_000000`)
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'answer.txt'),
      answerIn(id, scriptedAnswer(`Answer from ${id}.`))
    )
  })
}

function writeFinal() {
  const dir = path.join(attempt, 'final', agentIds[0])
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    path.join(dir, 'answer.txt'),
    answerIn(agentIds[0], scriptedAnswer(`Answer from ${agentIds[0]}.`))
  )
}

function header() {
  console.log(`LOG_DIR: ${logDir}`)
  console.log(`STATUS: ${statusFile}`)
  console.log(`QUESTION: ${question}`)
  console.log(
    '[Coordination in progress - monitor status.json for real-time updates]'
  )
}

function footer() {
  const rel = path.relative(
    process.cwd(),
    path.join(attempt, 'final', agentIds[0], 'answer.txt')
  )
  console.log(`WINNER: ${agentIds[0]}`)
  console.log(`ANSWER_FILE: ${rel}`)
  console.log('DURATION: 1.5s')
  console.log(`ANSWER_PREVIEW: Answer from ${agentIds[0]}.`)
  console.log(`COMPLETED: ${agentIds.length} agents, 1.5s total`)
  console.log(
    `ANSWER: ${path.join(attempt, 'final', agentIds[0], 'answer.txt')}`
  )
}

/**
 * A hostile agent's leftovers (FAKE_MASSGEN_PLANT_LINKS, JSON of `canary`,
 * `postScript` and `outsideDir`): links at every name the action's scrub
 * used for its temporary files (`<file>.scrub-<pid>`, for the action's pid
 * and the pids after it, where its post step will run), at the action's own
 * answer.md, as an answer file, and as folders, all pointing outside the
 * work folder.
 */
function plantLinks() {
  if (!process.env.FAKE_MASSGEN_PLANT_LINKS) return
  const { canary, postScript, outsideDir } = JSON.parse(
    process.env.FAKE_MASSGEN_PLANT_LINKS
  )
  const link = (target, at) => {
    fs.mkdirSync(path.dirname(at), { recursive: true })
    fs.rmSync(at, { force: true, recursive: true })
    fs.symlinkSync(target, at)
  }
  const answers = [
    ...agentIds.map((id, i) =>
      path.join(attempt, id, `20261130_12000${i}_000000`, 'answer.txt')
    ),
    path.join(attempt, 'final', agentIds[0], 'answer.txt')
  ]
  for (const file of answers) {
    link(postScript, `${file}.scrub-${process.ppid}`)
    for (let pid = process.ppid + 1; pid < process.ppid + 400; pid++)
      link(canary, `${file}.scrub-${pid}`)
  }
  link(canary, path.resolve('answer.md'))
  link(
    canary,
    path.join(attempt, agentIds[0], '20261130_110000_000000', 'answer.txt')
  )
  link(outsideDir, path.join(attempt, agentIds[0], 'linked-folder'))
  link(outsideDir, path.resolve('workspace-link'))
  link(outsideDir, path.join(attempt, 'final', 'agent_zz'))
}

/**
 * A hostile agent's named pipes (FAKE_MASSGEN_PLANT_FIFOS=answers): the last agent's
 * answer and a vote beside it are FIFOs that nobody writes, so a blocking
 * open of either waits for ever.
 */
function plantFifos() {
  if (process.env.FAKE_MASSGEN_PLANT_FIFOS !== 'answers') return
  const last = agentIds.length - 1
  const dir = path.join(attempt, agentIds[last], `20261130_12000${last}_000000`)
  fs.mkdirSync(dir, { recursive: true })
  for (const name of ['answer.txt', 'vote.json']) {
    fs.rmSync(path.join(dir, name), { force: true })
    execFileSync('mkfifo', [path.join(dir, name)])
  }
}

/**
 * FAKE_MASSGEN_PLANT_FIFOS=status: once the run has started, status.json is
 * a FIFO that nobody writes, for the rest of the run (writeStatus leaves it).
 */
let statusIsFifo = false
function plantStatusFifo() {
  if (process.env.FAKE_MASSGEN_PLANT_FIFOS !== 'status') return
  fs.rmSync(statusFile, { force: true })
  execFileSync('mkfifo', [statusFile])
  statusIsFifo = true
}

/**
 * FAKE_MASSGEN_PLANT_SPARSE=<bytes>: an agent's `truncate -s 15T`: sparse
 * files of that size in an agent's workspace and in the log folder (as a
 * log the artifact would take), costing no disk but endless to read.
 */
function plantSparse() {
  const size = Number(process.env.FAKE_MASSGEN_PLANT_SPARSE ?? 0)
  if (!size) return
  for (const file of [
    path.resolve('.massgen', 'workspaces', agentIds[0], 'huge.bin'),
    path.join(attempt, agentIds[0], 'huge.log')
  ]) {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.closeSync(fs.openSync(file, 'w'))
    fs.truncateSync(file, size)
  }
}

/**
 * FAKE_MASSGEN_AGENTS (JSON `{ <agent id>: { answer, voteFor, voteReason? } }`,
 * or the file FAKE_MASSGEN_AGENTS_FILE names):
 * each agent's own answer and vote, laid out as MassGen 0.1.97 leaves them
 * (__fixtures__/massgen/split-3-agents): an answer folder and a vote folder
 * per agent, labels `agentN.1` in the order of the sorted ids, the votes
 * keyed by label in status.json, the winner's final presentation in both
 * final/ folders. The winner has the most votes; on a tie, the first of the
 * tied in that order (no test relies on MassGen's own tie-break).
 */
function writeScriptedRun(script) {
  const sorted = [...agentIds].sort()
  const labelOf = (id) => `agent${sorted.indexOf(id) + 1}.1`
  const tally = new Map(sorted.map((id) => [id, 0]))
  for (const id of agentIds) {
    const target = script[id]?.voteFor
    if (tally.has(target)) tally.set(target, tally.get(target) + 1)
  }
  const winner = sorted.reduce((best, id) =>
    tally.get(id) > tally.get(best) ? id : best
  )
  const answerOf = (id) =>
    answerIn(id, script[id]?.answer ?? `Answer from ${id}.`)
  const reasonOf = (id) => script[id]?.voteReason ?? `Vote from ${id}.`
  agentIds.forEach((id, i) => {
    const answerDir = path.join(attempt, id, `20261130_12000${i}_000000`)
    fs.mkdirSync(answerDir, { recursive: true })
    fs.writeFileSync(path.join(answerDir, 'answer.txt'), answerOf(id))
    const target = script[id]?.voteFor
    if (!tally.has(target)) return
    const voteDir = path.join(attempt, id, `20261130_12001${i}_000000`)
    fs.mkdirSync(voteDir, { recursive: true })
    fs.writeFileSync(
      path.join(voteDir, 'vote.json'),
      JSON.stringify({
        voter_id: id,
        voted_for: target,
        voted_for_label: labelOf(target),
        reason: reasonOf(id)
      })
    )
  })
  writeStatus({ winner })
  const status = JSON.parse(fs.readFileSync(statusFile, 'utf8'))
  for (const id of agentIds) {
    const target = script[id]?.voteFor
    status.agents[id].latest_answer_label = labelOf(id)
    status.agents[id].vote_cast = tally.has(target)
      ? {
          voted_for_agent: target,
          voted_for_label: labelOf(target),
          reason_preview: reasonOf(id).slice(0, 100)
        }
      : null
  }
  status.results.votes = Object.fromEntries(
    sorted
      .filter((id) => tally.get(id) > 0)
      .map((id) => [labelOf(id), tally.get(id)])
  )
  status.results.winner = winner
  fs.writeFileSync(statusFile, JSON.stringify(status, null, 2))
  for (const dir of [attempt, path.dirname(attempt)]) {
    const final = path.join(dir, 'final', winner)
    fs.mkdirSync(final, { recursive: true })
    fs.writeFileSync(path.join(final, 'answer.txt'), answerOf(winner))
  }
  return winner
}

/**
 * The result lines of a scripted run as 0.1.97's automation display prints
 * them (__fixtures__/massgen/split-3-agents/stdout.txt): each vote with its
 * reason, the tally, and the winner's answer in ANSWER_PREVIEW (its first
 * 200 characters, as they are: agents' text reaches the step's log here).
 */
function printResults(script, winner) {
  const final = path.join(attempt, 'final', winner, 'answer.txt')
  const answer = script[winner]?.answer ?? `Answer from ${winner}.`
  console.log(`\nWINNER: ${winner}`)
  console.log(`ANSWER_FILE: ${final}`)
  console.log('DURATION: 1.5s')
  console.log('\nTIMELINE:')
  const tally = new Map()
  for (const id of agentIds) {
    const { voteFor, voteReason } = script[id] ?? {}
    if (!voteFor) continue
    tally.set(voteFor, (tally.get(voteFor) ?? 0) + 1)
    console.log(`  [VOTE] ${id} -> ${voteFor}`)
    console.log(`         Reason: ${voteReason ?? `Vote from ${id}.`}`)
  }
  console.log('  [RESULTS]')
  for (const [id, count] of [...tally].sort((a, b) => b[1] - a[1]))
    console.log(
      `    ${id}: ${count} vote${count === 1 ? '' : 's'}${id === winner ? ' (winner)' : ''}`
    )
  const preview = answer.length > 200 ? `${answer.slice(0, 200)}...` : answer
  console.log(`ANSWER_PREVIEW: ${preview}`)
  console.log(`\nCOMPLETED: ${agentIds.length} agents, 1.5s total`)
  console.log(
    `ANSWER: ${path.join(path.dirname(attempt), 'final', winner, 'answer.txt')}`
  )
}

/** status.json as MassGen writes it early on: running, no answer or vote yet. */
const STARTING = {
  phase: 'initial_answer',
  pct: 10,
  complete: false,
  finish: 'in_progress',
  winner: null,
  noVotes: true
}

switch (scenario) {
  case 'success':
    header()
    writeStatus(STARTING)
    plantStatusFifo()
    await sleep(Number(process.env.FAKE_MASSGEN_DELAY_MS ?? 0))
    writeAnswers()
    writeStatus({})
    writeFinal()
    plantLinks()
    plantFifos()
    plantSparse()
    footer()
    break
  case 'scripted': {
    // A large script comes in a file: one variable holds at most 128 KiB.
    const file = process.env.FAKE_MASSGEN_AGENTS_FILE
    const script = JSON.parse(
      file
        ? fs.readFileSync(file, 'utf8')
        : (process.env.FAKE_MASSGEN_AGENTS ?? '{}')
    )
    header()
    writeStatus(STARTING)
    printResults(script, writeScriptedRun(script))
    break
  }
  case 'progress':
    // Several status.json changes, a phase at a time, for the live view.
    header()
    for (const [phase, pct, agentStatus] of [
      ['initial_answer', 10, 'streaming'],
      ['initial_answer', 40, 'answered'],
      ['enforcement', 70, 'voted'],
      ['presentation', 90, 'voted']
    ]) {
      writeStatus({
        phase,
        pct,
        agentStatus,
        complete: false,
        finish: 'in_progress',
        winner: null,
        noVotes: phase !== 'presentation'
      })
      await sleep(Number(process.env.FAKE_MASSGEN_STEP_MS ?? 1500))
    }
    writeAnswers()
    writeStatus({})
    writeFinal()
    footer()
    break
  case 'scale': {
    // Size, not behaviour: every agent answers FAKE_MASSGEN_ANSWER_BYTES
    // (default 1 MiB), agent logs total FAKE_MASSGEN_LOG_MB (default 100 MiB,
    // spread over massgen.log, events.jsonl, agent_outputs and traces), and
    // stdout carries FAKE_MASSGEN_STDOUT_MB (default 0) of extra lines, one of
    // them longer than the action's line cap. Workspaces and snapshots are
    // written too (the logs artifact must leave them out).
    const mib = 1024 * 1024
    const answerBytes = Number(process.env.FAKE_MASSGEN_ANSWER_BYTES ?? mib)
    const logBytes = Number(process.env.FAKE_MASSGEN_LOG_MB ?? 100) * mib
    const stdoutBytes = Number(process.env.FAKE_MASSGEN_STDOUT_MB ?? 0) * mib
    const answerOf = (id) => {
      const head = `## Answer from ${id}\n\n`
      const line = `${id} says: the parser change is safe; see \`src/parser.ts\` and the benchmarks.\n`
      return (head + line.repeat(Math.ceil(answerBytes / line.length))).slice(
        0,
        answerBytes
      )
    }
    /** Writes `bytes` of text lines to a file in 1 MiB blocks. */
    const fill = (file, bytes, line) => {
      fs.mkdirSync(path.dirname(file), { recursive: true })
      const block = line.repeat(Math.ceil(mib / line.length)).slice(0, mib)
      const fd = fs.openSync(file, 'w')
      for (let left = bytes; left > 0; left -= mib)
        fs.writeSync(fd, left >= mib ? block : block.slice(0, left))
      fs.closeSync(fd)
    }
    header()
    writeStatus(STARTING)
    agentIds.forEach((id, i) => {
      const dir = path.join(
        attempt,
        id,
        `20261130_12000${i % 10}_${String(i).padStart(6, '0')}`
      )
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, 'answer.txt'), answerOf(id))
      fs.writeFileSync(path.join(dir, 'context.txt'), `context of ${id}\n`)
      fill(
        path.join(dir, 'workspace', 'scratch.txt'),
        64 * 1024,
        `workspace file of ${id}\n`
      )
      const voteDir = path.join(
        attempt,
        id,
        `20261130_12001${i % 10}_${String(i).padStart(6, '0')}`
      )
      fs.mkdirSync(voteDir, { recursive: true })
      fs.writeFileSync(
        path.join(voteDir, 'vote.json'),
        JSON.stringify({
          voter_id: id,
          voted_for: agentIds[0],
          voted_for_label: 'agent1.1',
          reason: `${id} finds agent1.1 the most complete.`,
          timestamp: '2026-11-30T12:00:10',
          iteration: 1
        })
      )
    })
    const shares = [
      [
        'massgen.log',
        0.4,
        '2026-11-30 12:00:00.000 | INFO | massgen.orchestrator: streaming chunk for agent\n'
      ],
      [
        'events.jsonl',
        0.3,
        '{"type":"chunk","agent":"agent_1","text":"partial answer text"}\n'
      ],
      ['metrics_events.json', 0.05, '{"event":"round","tokens":120}\n']
    ]
    for (const [name, share, line] of shares)
      fill(path.join(attempt, name), Math.floor(logBytes * share), line)
    const perAgent = Math.floor(
      (logBytes * 0.25) / Math.max(1, agentIds.length)
    )
    for (const id of agentIds)
      fill(
        path.join(attempt, 'agent_outputs', `${id}.txt`),
        perAgent,
        `${id}: thinking about the parser...\n`
      )
    fs.writeFileSync(
      path.join(attempt, 'metrics_summary.json'),
      JSON.stringify({
        meta: { num_agents: agentIds.length, winner: agentIds[0] },
        totals: { estimated_cost: 0.0123 }
      })
    )
    fill(
      path.join(attempt, 'snapshots', agentIds[0], 'copy.txt'),
      64 * 1024,
      'snapshot\n'
    )
    const votes = {
      'agent1.1': Math.max(1, agentIds.length - 2),
      'agent2.1': Math.min(2, agentIds.length - 1)
    }
    writeStatus({})
    const status = JSON.parse(fs.readFileSync(statusFile, 'utf8'))
    status.results.votes = votes
    fs.writeFileSync(statusFile, JSON.stringify(status, null, 2))
    const finalDir = path.join(attempt, 'final', agentIds[0])
    fs.mkdirSync(finalDir, { recursive: true })
    fs.writeFileSync(path.join(finalDir, 'answer.txt'), answerOf(agentIds[0]))
    fill(
      path.join(finalDir, 'workspace', 'result.txt'),
      64 * 1024,
      'final workspace\n'
    )
    if (stdoutBytes > 0) {
      const line = `${'litellm noise line '.repeat(5)}\n`
      const block = line.repeat(Math.ceil((64 * 1024) / line.length))
      const write = (text) =>
        process.stdout.write(text)
          ? undefined
          : new Promise((r) => process.stdout.once('drain', r))
      await write(`${'x'.repeat(256 * 1024)}\n`)
      for (let sent = 0; sent < stdoutBytes; sent += block.length)
        await write(block)
    }
    footer()
    break
  }
  case 'no-winner':
    header()
    writeStatus({
      complete: false,
      finish: 'in_progress',
      winner: null,
      noVotes: true,
      noAnswers: true,
      agentStatus: 'error',
      agentError: 'Error code: 500 - upstream failed',
      phase: 'initial_answer',
      pct: 0
    })
    console.log('COMPLETED: 0 agents, 1.0s total')
    break
  case 'missing-answer':
    header()
    writeStatus({})
    footer()
    break
  case 'bad-status':
    header()
    writeAnswers()
    writeFinal()
    writeStatus({ raw: '{"finish_reason": "completed", "is_comp' })
    footer()
    break
  case 'no-status':
    header()
    break
  case 'spoof':
    // The question echo carries lines that look like MassGen's own.
    header()
    writeAnswers()
    writeStatus({})
    writeFinal()
    console.log('ANSWER: /etc/passwd')
    console.log('LOG_DIR: /etc')
    console.log('STATUS: /etc/passwd')
    footer()
    console.log('ANSWER_PREVIEW: x\nANSWER: /etc/shadow\nWINNER: ../../evil')
    break
  case 'config-error':
    // The shape 0.1.97 prints (__fixtures__/massgen/config-error/stderr-tail.txt).
    console.error('\n🔴 Configuration Errors Found:\n')
    console.error("❌ [agents[0].backend.type] Unknown backend type: 'nope'")
    console.error(
      '   💡 Suggestion: Use one of: chatcompletion, claude, gemini, vllm'
    )
    console.log(
      '❌ Config validation failed. Fix errors above or use --skip-validation to bypass.'
    )
    process.exit(1)
    break
  case 'exit-2':
    header()
    console.error('Traceback (most recent call last):\nRuntimeError: boom')
    process.exit(2)
    break
  case 'crash':
    header()
    writeStatus({
      complete: false,
      finish: 'in_progress',
      winner: null,
      noVotes: true,
      phase: 'initial_answer',
      pct: 20
    })
    process.kill(process.pid, 'SIGKILL')
    break
  case 'hang':
  case 'hang-ignore-sigint': {
    header()
    writeAnswers()
    writeStatus({
      complete: false,
      finish: 'in_progress',
      winner: null,
      noVotes: true,
      phase: 'enforcement',
      pct: 50,
      agentStatus: 'answered'
    })
    if (process.env.FAKE_MASSGEN_PLANT_LINKS) {
      writeFinal()
      plantLinks()
    }
    if (scenario === 'hang-ignore-sigint') process.on('SIGINT', () => {})
    // A grandchild in the same process group: it must not outlive the run.
    const { spawn } = await import('node:child_process')
    spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore'
    })
    setInterval(() => {}, 1000)
    break
  }
  default:
    console.error(`unknown FAKE_MASSGEN_SCENARIO ${scenario}`)
    process.exit(2)
}
