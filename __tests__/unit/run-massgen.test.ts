// The action's own deadline and how it stops MassGen, on a stand-in process
// and jest's fake clock: the signals sent and when, never wall time.
import {
  afterEach,
  beforeEach,
  describe,
  expect,
  it,
  jest
} from '@jest/globals'
import type {
  Exit,
  ProcessRunner,
  RunningProcess
} from '../../src/core/process.js'
import {
  deadlineSeconds,
  runMassgen,
  type MassgenRunOutcome
} from '../../src/run/run-massgen.js'

const GRACE = 'MASSGEN_ACTION_DEADLINE_GRACE_SECONDS'

describe('deadlineSeconds', () => {
  it('is max-duration plus a 60 s grace', () => {
    expect(deadlineSeconds(1800, {})).toBe(1860)
    expect(deadlineSeconds(1, {})).toBe(61)
  })

  it('takes a shorter grace from the environment (tests of a hung MassGen)', () => {
    expect(deadlineSeconds(2, { [GRACE]: '1' })).toBe(3)
    expect(deadlineSeconds(2, { [GRACE]: '0' })).toBe(2)
    expect(deadlineSeconds(2, { [GRACE]: '2.5' })).toBe(4.5)
  })

  it('never takes a longer grace than 60 s', () => {
    expect(deadlineSeconds(2, { [GRACE]: '999' })).toBe(62)
  })

  it('ignores an unset, empty, negative or unreadable grace', () => {
    for (const value of [undefined, '', '  ', '-1', 'abc', 'Infinity'])
      expect(deadlineSeconds(10, { [GRACE]: value })).toBe(70)
  })
})

/** A MassGen stand-in that records the signals its group receives. */
function standIn(behaviour: { ignoresSigint?: boolean } = {}) {
  const signals: NodeJS.Signals[] = []
  let alive = true
  let exit: (e: Exit) => void = () => {}
  const exited = new Promise<Exit>((resolve) => (exit = resolve))
  const child: RunningProcess = {
    pid: 4242,
    exited,
    signalGroup(signal) {
      signals.push(signal)
      if (!alive) return
      if (signal === 'SIGKILL' || !behaviour.ignoresSigint) {
        alive = false
        exit({ exitCode: null, signal })
      }
    },
    groupAlive: () => alive
  }
  const runner: ProcessRunner = {
    start: () => child,
    exec: () => Promise.reject(new Error('not used'))
  }
  const finish = () => {
    alive = false
    exit({ exitCode: 0, signal: null })
  }
  return { runner, signals, finish }
}

describe('runMassgen: the deadline and the stop', () => {
  let saved: string | undefined
  beforeEach(() => {
    saved = process.env[GRACE]
    delete process.env[GRACE]
    jest.useFakeTimers()
  })
  afterEach(() => {
    jest.useRealTimers()
    if (saved === undefined) delete process.env[GRACE]
    else process.env[GRACE] = saved
  })

  function start(
    runner: ProcessRunner,
    extra: { abort?: AbortSignal } = {}
  ): { log: string[]; outcome: Promise<MassgenRunOutcome> } {
    const log: string[] = []
    const outcome = runMassgen(runner, {
      command: 'massgen',
      args: [],
      cwd: '/nonexistent',
      env: {},
      logBase: '/nonexistent',
      maxDurationSeconds: 10,
      log: (m) => log.push(m),
      ...extra
    })
    return { log, outcome }
  }

  it('sends nothing before max-duration + grace, then SIGINT; a MassGen that stops gets no wait', async () => {
    const { runner, signals } = standIn()
    const { log, outcome } = start(runner)
    await jest.advanceTimersByTimeAsync(69_999)
    expect(signals).toEqual([])
    await jest.advanceTimersByTimeAsync(1)
    expect(signals[0]).toBe('SIGINT')
    const result = await outcome
    expect(result).toMatchObject({ timedOut: true, cancelled: false })
    expect(result.signal).toBe('SIGINT')
    expect(log).toEqual([
      'MassGen ran past its deadline of 70 s (max-duration 10 s + 60 s grace): ' +
        'stopping MassGen (SIGINT to its process group)'
    ])
  })

  it('sends SIGKILL 5 s after a SIGINT that MassGen ignores', async () => {
    const { runner, signals } = standIn({ ignoresSigint: true })
    const { log, outcome } = start(runner)
    await jest.advanceTimersByTimeAsync(70_000)
    expect(signals).toEqual(['SIGINT'])
    await jest.advanceTimersByTimeAsync(4_999)
    expect(signals).toEqual(['SIGINT'])
    await jest.advanceTimersByTimeAsync(1)
    expect(signals).toEqual(['SIGINT', 'SIGKILL'])
    const result = await outcome
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' })
    expect(log[1]).toBe(
      'MassGen still ran 5 s after SIGINT: SIGKILL to its process group'
    )
  })

  it('uses the shortened grace of the environment', async () => {
    process.env[GRACE] = '1'
    const { runner, signals } = standIn()
    const { log, outcome } = start(runner)
    await jest.advanceTimersByTimeAsync(10_999)
    expect(signals).toEqual([])
    await jest.advanceTimersByTimeAsync(1)
    await outcome
    expect(signals[0]).toBe('SIGINT')
    expect(log[0]).toMatch(
      /deadline of 11 s \(max-duration 10 s \+ 1 s grace\)/
    )
  })

  it('stops at once when the job is cancelled, and says so', async () => {
    const { runner, signals } = standIn()
    const abort = new AbortController()
    const { log, outcome } = start(runner, { abort: abort.signal })
    abort.abort()
    const result = await outcome
    expect(signals[0]).toBe('SIGINT')
    expect(result).toMatchObject({ cancelled: true, timedOut: false })
    expect(log[0]).toMatch(/^The job was cancelled: stopping MassGen/)
  })

  it('never signals a MassGen that finished in time, even after the deadline passes', async () => {
    const { runner, signals, finish } = standIn()
    const { log, outcome } = start(runner)
    await jest.advanceTimersByTimeAsync(30_000)
    finish()
    const result = await outcome
    await jest.advanceTimersByTimeAsync(120_000)
    expect(signals).toEqual([])
    expect(log).toEqual([])
    expect(result).toMatchObject({
      exitCode: 0,
      timedOut: false,
      cancelled: false,
      survivors: false
    })
  })
})
