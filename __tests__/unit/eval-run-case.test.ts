// What one run of the action says about a review (scripts/eval/run-case.ts
// outcomeOf), and what `--keep` writes (keepRun): read from the action's
// outputs, job summary and log as real runs on the local model left them.
import { afterAll, describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { keepRun, outcomeOf } from '../../scripts/eval/run-case.js'
import type { ActionRun } from '../../test-support/run-action.js'

const FINDING = {
  file: 'src/report/render.ts',
  line: 12,
  severity: 'concern',
  agreement: 1,
  confirmed: 0,
  rejected: 2,
  pr_text_only: false,
  posted: 'summary'
}

function actionRun(over: Partial<ActionRun> = {}): ActionRun {
  return {
    exitCode: 0,
    stdout: '',
    stderr: '',
    spawnedAt: 0,
    closedAt: 0,
    outputs: { status: 'success', findings: '[]' },
    state: {},
    summary: '',
    dir: '/nowhere',
    ...over
  }
}

describe('a run of the action, read back', () => {
  it('a status other than success is a failed run with that status, never no findings', () => {
    const out = outcomeOf(
      actionRun({
        exitCode: 1,
        outputs: { status: 'failed', findings: '[]' },
        summary: '🔤 6,133 in / 1,020 out tokens'
      }),
      120
    )
    expect(out).toMatchObject({
      ok: false,
      reason: "the action's status was 'failed' (exit code 1)",
      answers: { tokens_in: 6133, tokens_out: 1020, seconds: 120 }
    })
  })

  it('a success with no findings output (no review) is failed too', () => {
    expect(
      outcomeOf(actionRun({ outputs: { status: 'success' } }), 10)
    ).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no findings output')
    })
  })

  it('splits the vote round off the totals, and takes "?" figures as unknown', () => {
    const out = outcomeOf(
      actionRun({
        outputs: { status: 'success', findings: JSON.stringify([FINDING]) },
        summary: '🔤 9,000 in / 800 out tokens',
        stdout: [
          'Finding vote: 1 finding(s) put to 2 agent(s) in a second MassGen run (one ballot each).',
          'Finding vote: MassGen success in 61.5 s, 2000 input + 300 output tokens, 2 answer(s).'
        ].join('\n')
      }),
      200,
      70
    )
    expect(out).toMatchObject({
      ok: true,
      findings: [FINDING],
      answers: { tokens_in: 7000, tokens_out: 500, seconds: 130 },
      voteRound: { tokens_in: 2000, tokens_out: 300, seconds: 70 }
    })
    const unknown = outcomeOf(
      actionRun({
        outputs: { status: 'success', findings: JSON.stringify([FINDING]) },
        stdout:
          'Finding vote: MassGen failed in ? s, ? input + ? output tokens, 0 answer(s).'
      }),
      50
    )
    expect(unknown).toMatchObject({
      ok: true,
      answers: { tokens_in: null, tokens_out: null, seconds: 50 },
      voteRound: { tokens_in: null, tokens_out: null, seconds: 0 }
    })
  })
})

describe('--keep', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-keep-'))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it("writes the run's job summary and outputs, with no key input's value", () => {
    const key = 'sk-keepOPENAIkey1234567890abcdef'
    const keep = path.join(dir, 'bug-01', 'single_vllm_local-a')
    keepRun(
      actionRun({
        outputs: { status: 'failed', answer: `echoed ${key}` },
        summary: `❌ MassGen: failed\n\n${key}`,
        stdout: `::add-mask::${key}`
      }),
      { inputs: { models: 'vllm/local-a', 'openai-api-key': key }, keep }
    )
    expect(fs.readdirSync(keep).sort()).toEqual(['outputs.json', 'summary.md'])
    const summary = fs.readFileSync(path.join(keep, 'summary.md'), 'utf8')
    const outputs = fs.readFileSync(path.join(keep, 'outputs.json'), 'utf8')
    expect(summary).toContain('❌ MassGen: failed')
    expect(JSON.parse(outputs)).toMatchObject({ status: 'failed' })
    expect(summary + outputs).not.toContain(key)
  })
})
