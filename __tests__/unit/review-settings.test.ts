// The review inputs: review, fail-on and min-agreement, validated with errors
// that name the input and the expected form.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { readSettings } from '../../src/inputs/settings.js'

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'review-settings-'))

function read(inputs: Record<string, string>) {
  return readSettings({ getInput: (n) => inputs[n] ?? '', env: {}, workspace })
}

describe('review inputs', () => {
  it('default to today: review off, fail-on never, min-agreement 1', () => {
    expect(read({ query: 'q' })).toMatchObject({
      review: 'off',
      failOn: 'never',
      minAgreement: 1
    })
  })

  it('read inline, the gate and the agreement (case-insensitive words)', () => {
    expect(
      read({ review: 'Inline', 'fail-on': 'CONCERN', 'min-agreement': ' 2 ' })
    ).toMatchObject({ review: 'inline', failOn: 'concern', minAgreement: 2 })
  })

  it('refuse bad values, naming each input and the expected form', () => {
    let message = ''
    try {
      read({ review: 'yes', 'fail-on': 'blockers', 'min-agreement': '0' })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toContain(
      "Input 'review': got 'yes', expected 'off' or 'inline'"
    )
    expect(message).toContain(
      "Input 'fail-on': got 'blockers', expected 'blocker', 'concern' or 'never'"
    )
    expect(message).toContain(
      "Input 'min-agreement': got '0', expected a whole number of agents from 1 to 64"
    )
    expect(() => read({ 'min-agreement': '1.5' })).toThrow(/min-agreement/)
  })

  it("fail-on takes 'unclear' alone or in a list; 'never' stands alone", () => {
    expect(read({ 'fail-on': 'blocker, Unclear' })).toMatchObject({
      failOn: 'blocker',
      failOnUnclear: true
    })
    expect(read({ 'fail-on': 'unclear' })).toMatchObject({
      failOn: 'never',
      failOnUnclear: true
    })
    expect(read({ 'fail-on': 'blocker concern' })).toMatchObject({
      failOn: 'concern',
      failOnUnclear: false
    })
    expect(() => read({ 'fail-on': 'never, unclear' })).toThrow(
      /Input 'fail-on': got 'never, unclear', expected/
    )
    expect(() => read({ 'fail-on': ' , ' })).toThrow(/fail-on/)
  })

  it('check-run is on by default, and off with false', () => {
    expect(read({}).checkRun).toBe(true)
    expect(read({ 'check-run': 'false' }).checkRun).toBe(false)
    expect(() => read({ 'check-run': 'maybe' })).toThrow(/check-run/)
  })
})
