import { describe, expect, it } from '@jest/globals'
import {
  NOBODY,
  planSandbox,
  sandboxedCommand
} from '../../src/safety/sandbox.js'

const base = {
  uid: 1001,
  gid: 1001,
  home: '/home/runner',
  runnerTemp: '/home/runner/work/_temp',
  workDir: '/home/runner/work/_temp/massgen-1-abc',
  contextPaths: [{ path: '/home/runner/work/repo/repo', writable: false }],
  toolPaths: ['/opt/hostedtoolcache/massgen/0.1.97/x64', '/usr/local/bin'],
  canEnter: () => true
}

describe('planSandbox', () => {
  it("hides the runner's home and work folder, binds back the repository read-only and the run's folder writable", () => {
    const spec = planSandbox(base)
    expect(spec.uid).toBe(1001)
    expect(spec.hide).toEqual(['/home/runner'])
    expect(spec.keep).toEqual([
      { path: '/usr/local/bin', writable: false },
      { path: '/home/runner/work/_temp/massgen-1-abc', writable: true },
      { path: '/home/runner/work/repo/repo', writable: false },
      { path: '/opt/hostedtoolcache/massgen/0.1.97/x64', writable: false }
    ])
    expect(spec.home).toBe('/home/runner/work/_temp/massgen-1-abc/home')
  })
  it('as root, the agents run as nobody', () => {
    const spec = planSandbox({ ...base, uid: 0, gid: 0, home: '/root' })
    expect([spec.uid, spec.gid]).toEqual([NOBODY, NOBODY])
    expect(spec.hide).toEqual(['/home/runner/work', '/root'])
  })
  it('hides the closed folders above a kept path, so only what is bound back shows', () => {
    const spec = planSandbox({
      ...base,
      contextPaths: [{ path: '/srv/private/repo', writable: true }],
      canEnter: (folder) => folder !== '/srv/private'
    })
    expect(spec.hide).toEqual(['/home/runner', '/srv/private'])
    expect(spec.keep).toContainEqual({
      path: '/srv/private/repo',
      writable: true
    })
  })
  it('never binds back a tool folder that holds a private folder', () => {
    const spec = planSandbox({ ...base, toolPaths: ['/home', '/home/runner'] })
    expect(spec.keep.map((k) => k.path)).not.toContain('/home')
    expect(spec.keep.map((k) => k.path)).not.toContain('/home/runner')
  })
  it('a path given twice keeps the stricter permission', () => {
    const spec = planSandbox({
      ...base,
      contextPaths: [
        { path: '/repo', writable: true },
        { path: '/repo/', writable: false }
      ]
    })
    expect(spec.keep.filter((k) => k.path === '/repo')).toEqual([
      { path: '/repo', writable: false }
    ])
  })
})

describe('sandboxedCommand', () => {
  const spec = planSandbox(base)
  it('goes through sudo -E when the runner user has sudo: keys travel in the environment, never in arguments', () => {
    const { command, args } = sandboxedCommand(
      spec,
      'sudo',
      '/venv/bin/massgen',
      ['--config', 'c.yaml', '--', 'question'],
      '/usr/bin'
    )
    expect(command).toBe('sudo')
    expect(args.slice(0, 4)).toEqual(['-n', '-E', '--', 'unshare'])
    expect(args).toEqual(
      expect.arrayContaining([
        'hide:/home/runner',
        'ro:/home/runner/work/repo/repo'
      ])
    )
    expect(args.slice(-5)).toEqual([
      '/venv/bin/massgen',
      '--config',
      'c.yaml',
      '--',
      'question'
    ])
  })
  it('as root starts unshare directly', () => {
    const { command } = sandboxedCommand(
      spec,
      'root',
      'massgen',
      [],
      '/usr/bin'
    )
    expect(command).toBe('unshare')
  })
})
