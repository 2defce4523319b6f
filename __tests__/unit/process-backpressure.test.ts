// The process runner stops reading a child that prints faster than its lines
// can be written out, so the action's memory does not grow with the output.
import { describe, expect, it, jest } from '@jest/globals'
import { Writable } from 'node:stream'
import { createProcessRunner } from '../../src/process/process.js'

jest.setTimeout(30_000)

describe('start with a sink', () => {
  it('pauses reading while the sink is full and resumes when it drains', async () => {
    const gate = { open: false }
    const held: (() => void)[] = []
    // A sink that accepts writes but finishes none until released.
    const sink = new Writable({
      highWaterMark: 16 * 1024,
      write(_chunk, _encoding, done) {
        if (gate.open) done()
        else held.push(done)
      }
    })
    let received = 0
    const mib = 1024 * 1024
    const child = createProcessRunner().start(
      process.execPath,
      [
        '-e',
        `const l = 'x'.repeat(99) + '\\n'; const b = l.repeat(10486); let n = 0; const go = () => { while (n < 40 && process.stdout.write(b)) n++; if (n < 40) process.stdout.once('drain', () => { n++; go() }) }; go()`
      ],
      {
        cwd: process.cwd(),
        env: process.env,
        sink,
        onLine: (_stream, line) => {
          received += line.length + 1
          sink.write(line + '\n')
        }
      }
    )
    await new Promise((r) => setTimeout(r, 1500))
    // 40 MiB offered; reading stopped near the 1 MiB mark.
    expect(received).toBeLessThan(4 * mib)
    gate.open = true
    held.splice(0).forEach((done) => done())
    const exit = await child.exited
    expect(exit.exitCode).toBe(0)
    expect(received).toBeGreaterThanOrEqual(40 * mib)
  })
})
