// Set up for every test file: the project's timeout (jest.config.js gives
// each project its own in `globals.projectTimeoutMs`; a file may still set a
// longer one), and nothing left behind by a test, even one that timed out:
// the bundled action's processes are killed and the loopback servers closed.
import { afterAll, afterEach, jest } from '@jest/globals'
import { closeOpenServers, killLiveChildren } from '../test-support/live.js'

const { projectTimeoutMs } = globalThis as { projectTimeoutMs?: number }
if (projectTimeoutMs) jest.setTimeout(projectTimeoutMs)

// After each test: a run a test started and stopped waiting for is over.
afterEach(() => {
  killLiveChildren()
})

// After the file: runs started in beforeAll, and every server still open.
afterAll(async () => {
  killLiveChildren()
  await closeOpenServers()
})
