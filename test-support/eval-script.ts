// What three scripted models answer and vote on the evaluation's test
// corpus (__fixtures__/eval/scripted), played by test-support/eval-massgen.mjs;
// __tests__/e2e/eval.test.ts gives the hand-computed scores.
//
// case-a-bugs (known: 10-12, 16-17, 30 `tp: false`, 60-61 in src/a.ts):
//   model-a: lines 11-13, within 3 lines of 10-12 AND of 16-17 (one finding,
//     two known problems: it takes one);
//   model-b: line 10 with model-a's title (grouped with it), and line 11
//     (two findings on one known problem: one is a duplicate);
//   model-c: src/other.ts, a file the pull request does not change (the
//     action drops it), and line 30 (the known false alarm).
//   In the vote, every model confirms F1 (the group of model-a and model-b).
// case-b-clean (expected []): model-a and model-c raise the same false
//   alarm; model-b's findings block is unreadable; in the vote model-b and
//   model-c reject it.
// case-c-failed (known: line 5 of src/c.ts): model-a finds it, model-b finds
//   nothing, model-c's runs crash.
import { findingsBlock } from './review-pull.ts'

const ballot = (votes: unknown[]): string =>
  [
    'My votes.',
    '',
    '```massgen-finding-votes',
    JSON.stringify(votes),
    '```'
  ].join('\n')

const offByOne = {
  file: 'src/a.ts',
  start_line: 11,
  line: 13,
  severity: 'blocker',
  title: 'Loop bound off by one',
  explanation: 'The loop runs one step too far.'
}
const sameTitleLine10 = {
  file: 'src/a.ts',
  line: 10,
  severity: 'blocker',
  title: 'Loop bound off by one',
  explanation: 'Reads past the end.'
}
const nullCheck = {
  file: 'src/a.ts',
  line: 11,
  severity: 'concern',
  title: 'Missing null check on input buffer',
  explanation: 'buffer may be null.'
}
const outsideDiff = {
  file: 'src/other.ts',
  line: 5,
  severity: 'concern',
  title: 'Not changed here',
  explanation: 'A file the pull request does not change.'
}
const falseAlarm = {
  file: 'src/a.ts',
  line: 30,
  severity: 'concern',
  title: 'Timer handle leaked',
  explanation: 'The timer is never cleared.'
}
const race = {
  file: 'src/b.ts',
  line: 5,
  severity: 'concern',
  title: 'Possible race on shared counter',
  explanation: 'Two writers.'
}
const index = {
  file: 'src/c.ts',
  line: 6,
  severity: 'blocker',
  title: 'Unchecked index',
  explanation: 'list may be shorter.'
}

const confirmF1 = ballot([
  { finding: 'F1', vote: 'confirm', reason: 'the bound is wrong' }
])
const answer = (who: string, items: unknown[]) =>
  `Review by ${who}.\n\n${findingsBlock(items)}`

export const EVAL_MODELS = ['vllm/model-a', 'vllm/model-b', 'vllm/model-c']

/** FAKE_MASSGEN_EVAL for test-support/eval-massgen.mjs. */
export function evalScript(): Record<string, Record<string, unknown>> {
  return {
    '[eval:a]': {
      'vllm/model-a': { answer: answer('a', [offByOne]), ballot: confirmF1 },
      'vllm/model-b': {
        answer: answer('b', [sameTitleLine10, nullCheck]),
        ballot: confirmF1
      },
      'vllm/model-c': {
        answer: answer('c', [outsideDiff, falseAlarm]),
        ballot: confirmF1
      }
    },
    '[eval:b]': {
      'vllm/model-a': {
        answer: answer('a', [race]),
        ballot: ballot([
          { finding: 'F1', vote: 'confirm', reason: 'two writers' }
        ])
      },
      'vllm/model-b': {
        answer:
          'Review by b.\n\n```massgen-findings\n[{"file": "src/b.ts", "line": 5,\n```',
        ballot: ballot([
          { finding: 'F1', vote: 'reject', reason: 'one writer' }
        ])
      },
      'vllm/model-c': {
        answer: answer('c', [race]),
        ballot: ballot([
          { finding: 'F1', vote: 'reject', reason: 'single-threaded' }
        ])
      }
    },
    '[eval:c]': {
      'vllm/model-a': { answer: answer('a', [index]) },
      'vllm/model-b': { answer: answer('b', []) },
      'vllm/model-c': { fail: true }
    }
  }
}
