// The guard's gate (safety/massgen-guard.ts): in Docker mode MassGen starts
// while its read container is still starting, and its MCP client must start
// no MCP server before the action opens the gate. Played with the guard on
// PYTHONPATH, as MassGen runs it, and a stand-in of MassGen's module
// (massgen.mcp_tools.client, MCPClient.connect) that records whether the
// gate was open when it was called. No timing: the order of events.
import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  READ_GATE_ENV,
  withMassgenGuard,
  writeMassgenGuard
} from '../../src/safety/massgen-guard.js'

function standInMassgen(root: string): void {
  const pkg = path.join(root, 'massgen', 'mcp_tools')
  fs.mkdirSync(pkg, { recursive: true })
  fs.writeFileSync(path.join(root, 'massgen', '__init__.py'), '')
  fs.writeFileSync(path.join(pkg, '__init__.py'), '')
  fs.writeFileSync(
    path.join(pkg, 'client.py'),
    [
      'import os',
      'class MCPClient:',
      '    async def connect(self):',
      '        print("connect: gate open" if os.path.exists(os.environ["STAND_IN_GATE"]) else "connect: gate shut", flush=True)',
      ''
    ].join('\n')
  )
}

/** Connects once; the gate opens (by this script) after the connect began waiting. */
const SCRIPT = `
import asyncio, os, sys
sys.path.insert(0, sys.argv[1])
from massgen.mcp_tools.client import MCPClient

async def main():
    task = asyncio.ensure_future(MCPClient().connect())
    for _ in range(10):
        await asyncio.sleep(0)
    print("waiting" if not task.done() else "did not wait", flush=True)
    open(os.environ["STAND_IN_GATE"], "w").close()
    await task

asyncio.run(main())
`

/** The script's lines, with the guard given the gate or not. */
function runWithGuard(gated: boolean): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'read-gate-'))
  try {
    const work = path.join(dir, 'run')
    fs.mkdirSync(work)
    const stand = path.join(dir, 'stand-in')
    standInMassgen(stand)
    const gate = path.join(dir, 'read-container.open')
    const env = withMassgenGuard(
      {
        PATH: process.env.PATH,
        STAND_IN_GATE: gate,
        ...(gated ? { [READ_GATE_ENV]: gate } : {})
      },
      writeMassgenGuard(work, {
        reviewOnly: false,
        noBackgroundTools: false
      })
    )
    return execFileSync('python3', ['-c', SCRIPT, stand], {
      env,
      encoding: 'utf8'
    })
      .trim()
      .split('\n')
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

describe("the read container's gate", () => {
  it("MassGen's MCP client starts no server before the gate opens", () => {
    expect(runWithGuard(true)).toEqual(['waiting', 'connect: gate open'])
  })

  it('without a read container (no gate given) it connects at once', () => {
    expect(runWithGuard(false)).toEqual(['connect: gate shut', 'did not wait'])
  })
})
