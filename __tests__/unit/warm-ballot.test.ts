// The vote round's MassGen started warm (src/vote/warm-ballot.ts): started
// with the answers' launch and the warm-start switch, handed the ballot
// run's arguments only when the ballot run's launch is that launch with
// arguments after it; otherwise it goes and the ballot run starts cold.
import { afterAll, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { startWarmBallot } from '../../src/vote/warm-ballot.js'
import { WARM_START_ENV } from '../../src/safety/massgen-guard.js'
import type { Launch } from '../../src/safety/sandbox.js'
import { fakeChild, fakeProcesses } from '../../test-support/fake-process.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warm-ballot-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const script = (name: string, text: string) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, text, { mode: 0o755 })
  return file
}
const massgen = script(
  'massgen',
  '#!/bin/sh\nimport sys\nfrom massgen.cli import cli_main\nsys.exit(cli_main())\n'
)
const wrapper = script('wrapper', '#!/bin/sh\nexec massgen "$@"\n')

const PLAN = ['--config', '/run/answers.yaml', 'the question']
const BALLOT = ['--config', '/run/answers.vote.yaml', 'the ballot']
const env = { OPENAI_API_KEY: 'sk-x', PYTHONPATH: '/run-guard' }
/** Local mode's sandbox in front of MassGen: the plan's arguments last. */
const launchOf = (command: string, args: string[]): Launch => ({
  command: 'unshare',
  args: ['--pid', '--', command, ...args],
  env
})
const log = { info: () => undefined, warning: () => undefined }
const where = (command: string) => ({
  installation: { command, prefixArgs: [] },
  args: PLAN,
  cwd: '/run',
  log
})

describe('startWarmBallot', () => {
  it("starts MassGen's console script with the answers' launch, no plan arguments, the warm switch and a stdin pipe", async () => {
    const { runner, starts } = fakeProcesses({ only: 'start' })
    const warm = startWarmBallot(
      runner,
      launchOf(massgen, PLAN),
      where(massgen)
    )
    expect(warm).toBeDefined()
    expect(starts).toHaveLength(1)
    expect(starts[0]?.command).toBe('unshare')
    expect(starts[0]?.args).toEqual(['--pid', '--', massgen])
    expect(starts[0]?.options).toMatchObject({
      cwd: '/run',
      input: true,
      env: { ...env, [WARM_START_ENV]: '1' }
    })
    await warm?.discard('test')
  })

  it('hands the ballot run its arguments, as one JSON line, when its launch is the same with arguments after it', () => {
    const child = fakeChild({ pid: 77 })
    const { runner } = fakeProcesses({ child })
    const warm = startWarmBallot(
      runner,
      launchOf(massgen, PLAN),
      where(massgen)
    )
    child.print('stderr', 'printed while importing')
    const cold = fakeProcesses({ only: 'exec' })
    const lines: string[] = []
    const ballot = launchOf(massgen, BALLOT)
    const started = warm
      ?.runner(cold.runner)
      .start(ballot.command, ballot.args, {
        cwd: '/run',
        env,
        onLine: (_stream, line) => lines.push(line)
      })
    expect(started?.pid).toBe(77)
    expect(child.sent).toEqual([`${JSON.stringify(BALLOT)}\n`])
    expect(lines).toEqual(['printed while importing'])
    expect(child.signals).toEqual([])
  })

  it('starts the ballot run cold, and kills the warm one, when the launch differs or the warm one ended', async () => {
    for (const change of [
      { env: { ...env, OPENAI_API_KEY: 'sk-other' } },
      { env: { ...env, ANTHROPIC_API_KEY: 'sk-more' } },
      { cwd: '/elsewhere' },
      { command: 'sudo' },
      { ended: true }
    ]) {
      const child = fakeChild({ pid: 78 })
      const warm = startWarmBallot(
        fakeProcesses({ child }).runner,
        launchOf(massgen, PLAN),
        where(massgen)
      )
      if ('ended' in change) child.finish({ exitCode: 1 })
      await Promise.resolve()
      const cold = fakeProcesses()
      const ballot = launchOf(massgen, BALLOT)
      warm
        ?.runner(cold.runner)
        .start(change.command ?? ballot.command, ballot.args, {
          cwd: change.cwd ?? '/run',
          env: change.env ?? env
        })
      expect(cold.starts).toHaveLength(1)
      // Its stdin closed with no arguments: it exits without running.
      expect(child.sent).toEqual([''])
      await warm?.discard('again')
      expect(child.groupAlive()).toBe(false)
    }
  })

  it('discards a warm MassGen not handed its ballots: SIGKILL to its group; once handed, never', async () => {
    const child = fakeChild({ pid: 79 })
    const warm = startWarmBallot(
      fakeProcesses({ child }).runner,
      launchOf(massgen, PLAN),
      where(massgen)
    )
    await warm?.discard('no findings')
    expect(child.sent).toEqual([''])
    expect(child.signals).toEqual(['SIGKILL'])
    const handed = fakeChild({ pid: 80 })
    const used = startWarmBallot(
      fakeProcesses({ child: handed }).runner,
      launchOf(massgen, PLAN),
      where(massgen)
    )
    const ballot = launchOf(massgen, BALLOT)
    used
      ?.runner(fakeProcesses({ only: 'exec' }).runner)
      .start(ballot.command, ballot.args, { cwd: '/run', env })
    await used?.discard('after the vote')
    expect(handed.signals).toEqual([])
  })

  it("is not started for a command that is not MassGen's console script, or with arguments before the plan's", () => {
    const { runner, starts } = fakeProcesses()
    expect(
      startWarmBallot(runner, launchOf(wrapper, PLAN), where(wrapper))
    ).toBeUndefined()
    expect(
      startWarmBallot(runner, launchOf(massgen, PLAN), {
        ...where(massgen),
        installation: { command: massgen, prefixArgs: ['-X'] }
      })
    ).toBeUndefined()
    expect(
      startWarmBallot(runner, launchOf('massgen', PLAN), where('massgen'))
    ).toBeUndefined()
    expect(starts).toEqual([])
  })
})
