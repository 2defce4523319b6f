// How much of each answer is read: the winner whole (to MAX_ANSWER_BYTES),
// a losing answer only up to its share of the job summary.
import { describe, expect, it } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import {
  answerReadLimit,
  MAX_ANSWER_BYTES,
  readRunFiles
} from '../../src/results/log-files.js'

describe('answerReadLimit', () => {
  it('reads the winner, and everyone in a run of two or without a winner, in full', () => {
    expect(answerReadLimit(16, true)).toBe(MAX_ANSWER_BYTES)
    expect(answerReadLimit(2, false)).toBe(MAX_ANSWER_BYTES)
  })

  it('reads a losing answer up to its share of the summary, never below 64 KiB', () => {
    const limit = answerReadLimit(16, false)
    expect(limit).toBeGreaterThan(MAX_ANSWER_BYTES / 15)
    expect(limit).toBeLessThan(MAX_ANSWER_BYTES / 10)
    expect(answerReadLimit(64, false)).toBe(64 * 1024)
  })
})

describe('readRunFiles with many large answers', () => {
  it('keeps the winner whole and cuts the losing answers at their share', () => {
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-files-'))
    const attempt = path.join(logDir, 'turn_1', 'attempt_1')
    const ids = Array.from({ length: 16 }, (_, i) => `agent_${i + 1}`)
    const big = 'x'.repeat(MAX_ANSWER_BYTES - 10)
    for (const id of ids) {
      fs.mkdirSync(path.join(attempt, id, '20261130_120000_000000'), {
        recursive: true
      })
      fs.writeFileSync(
        path.join(attempt, id, '20261130_120000_000000', 'answer.txt'),
        big
      )
    }
    fs.mkdirSync(path.join(attempt, 'final', 'agent_1'), { recursive: true })
    fs.writeFileSync(path.join(attempt, 'final', 'agent_1', 'answer.txt'), big)
    fs.writeFileSync(
      path.join(attempt, 'status.json'),
      JSON.stringify({
        finish_reason: 'completed',
        is_complete: true,
        results: { winner: 'agent_1', votes: {} }
      })
    )
    const files = readRunFiles(logDir, ids)
    expect(files.finalAnswer).toHaveLength(big.length)
    expect(files.answers.agent_1).toHaveLength(big.length)
    expect(files.answers.agent_2).toHaveLength(answerReadLimit(16, false))
    expect(files.answersTruncated).toBe(true)
    const total = Object.values(files.answers).reduce((n, a) => n + a.length, 0)
    expect(total).toBeLessThan(3 * MAX_ANSWER_BYTES)
  })
})
