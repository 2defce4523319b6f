#!/usr/bin/env node
// Runs the fake massgen's success scenario, then replaces status.json with
// text that is not JSON at all (a proxy's error page), as a broken disk or a
// half-written file could leave it.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

const fake = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../test-support/fake-massgen.mjs'
)
const run = spawnSync(process.execPath, [fake, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, FAKE_MASSGEN_SCENARIO: 'success' }
})
const base = path.resolve('.massgen/massgen_logs')
for (const log of fs.existsSync(base) ? fs.readdirSync(base) : []) {
  const status = path.join(base, log, 'turn_1', 'attempt_1', 'status.json')
  if (fs.existsSync(status))
    fs.writeFileSync(status, '<html><body>502 Bad Gateway</body></html>\n')
}
process.exit(run.status ?? 1)
