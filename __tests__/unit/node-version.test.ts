// The action runs on GitHub's node24; the tests must run the bundle on the
// same major version (jest itself may run on the machine's Node).
import { describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { parse } from 'yaml'
import { NODE24, ROOT } from '../../test-support/run-action.js'

describe('one Node version for the action', () => {
  it('action.yml, package.json engines and the Node the tests run the bundle on agree', () => {
    const action = parse(
      fs.readFileSync(path.join(ROOT, 'action.yml'), 'utf8')
    ) as { runs: { using: string } }
    expect(action.runs.using).toBe('node24')
    const pkg = JSON.parse(
      fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')
    ) as { engines: { node: string } }
    expect(pkg.engines.node).toBe('>=24')
    expect(execFileSync(NODE24, ['--version'], { encoding: 'utf8' })).toMatch(
      /^v24\./
    )
  })
})
