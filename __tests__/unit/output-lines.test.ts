import { describe, expect, it } from '@jest/globals'
import {
  foldOutputLine,
  inertLine,
  stripAnsi,
  type OutputHints
} from '../../src/run/output-lines.js'
import { isInside } from '../../src/core/paths.js'

const where = { cwd: '/w', logBase: '/w/.massgen/massgen_logs' }
const fold = (lines: string[]) =>
  lines.reduce<OutputHints>(
    (h, l) => foldOutputLine(h, stripAnsi(l), where),
    {}
  )
const logDir = '/w/.massgen/massgen_logs/log_20261130_042340_566991'

describe('foldOutputLine', () => {
  it('reads the real lines', () => {
    expect(
      fold([
        `LOG_DIR: ${logDir}`,
        `STATUS: ${logDir}/turn_1/attempt_1/status.json`,
        'QUESTION: What is 2+2? @bob',
        'WINNER: agent_a',
        'ANSWER_FILE: .massgen/massgen_logs/log_20261130_042340_566991/turn_1/attempt_1/final/agent_a/answer.txt',
        `ANSWER: ${logDir}/turn_1/final/agent_a/answer.txt`
      ])
    ).toEqual({
      logDir,
      statusFile: `${logDir}/turn_1/attempt_1/status.json`,
      winner: 'agent_a',
      answerFile: `${logDir}/turn_1/final/agent_a/answer.txt`
    })
  })
  it('ignores spoofed paths outside LOG_DIR and the log base', () => {
    const hints = fold([
      `LOG_DIR: ${logDir}`,
      'QUESTION: x',
      'ANSWER: /etc/passwd',
      'LOG_DIR: /etc',
      `ANSWER: ${logDir}/../../../../etc/passwd`,
      'STATUS: /etc/passwd',
      'WINNER: ../../evil'
    ])
    expect(hints).toEqual({ logDir })
  })
  it('strips colour codes', () => {
    expect(stripAnsi('\u001b[1;31mProvider List\u001b[0m')).toBe(
      'Provider List'
    )
    expect(fold(['\u001b[32mWINNER: agent_b\u001b[0m'])).toEqual({
      winner: 'agent_b'
    })
  })
})

describe('isInside', () => {
  it.each([
    ['/a/b', '/a', true],
    ['/a', '/a', true],
    ['/ab', '/a', false],
    ['/a/../b', '/a', false]
  ])('%s in %s: %s', (candidate, root, expected) => {
    expect(isInside(candidate, root)).toBe(expected)
  })
})

describe('inertLine', () => {
  it('makes no workflow command of a copied line', () => {
    expect(inertLine('::add-mask::x')).toBe('| ::add-mask::x')
    expect(inertLine('  ::error file=a::b')).toBe('|   ::error file=a::b')
    expect(inertLine('QUESTION: ##[set-output name=a;]b')).toBe(
      'QUESTION: ##\\[set-output name=a;]b'.replace(/^/, '| ')
    )
    expect(inertLine('x\r::warning::y')).toBe('| x\\r::warning::y')
  })
})
