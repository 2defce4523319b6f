import { describe, expect, it } from '@jest/globals'
import { createProcessRunner, lineSplitter } from '../../src/process/process.js'

describe('lineSplitter', () => {
  it('joins chunks into lines and handles CRLF', () => {
    const lines: string[] = []
    const s = lineSplitter((l) => lines.push(l))
    s.push('ab')
    s.push('c\r\nde\nf')
    s.end()
    expect(lines).toEqual(['abc', 'de', 'f'])
  })
  it('caps a very long line instead of holding it', () => {
    const lines: string[] = []
    const s = lineSplitter((l) => lines.push(l))
    s.push('x'.repeat(200_000))
    s.push('y'.repeat(10) + '\nnext\n')
    s.end()
    expect(lines.map((l) => l.length)).toEqual([65536, 4])
  })
})

describe('process runner', () => {
  it('kills the whole process group', async () => {
    const runner = createProcessRunner()
    const child = runner.start('sh', ['-c', 'sleep 30 & sleep 30 & wait'], {
      cwd: '/',
      env: process.env
    })
    await new Promise((r) => setTimeout(r, 200))
    expect(child.groupAlive()).toBe(true)
    child.signalGroup('SIGKILL')
    const exit = await child.exited
    expect(exit.signal).toBe('SIGKILL')
    await new Promise((r) => setTimeout(r, 100))
    expect(child.groupAlive()).toBe(false)
  })
  it('reports a missing command as exit 127', async () => {
    const result = await createProcessRunner().exec('/nonexistent/massgen', [])
    expect(result.exitCode).toBe(127)
  })
})
