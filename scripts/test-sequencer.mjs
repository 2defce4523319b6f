// The order jest starts test files in: the long ones first, so that no
// worker is left running one alone at the end. Jest's own order does this
// from the timings of an earlier run on this machine; a fresh clone (CI)
// has none, and file size puts short files first. These files run the
// real MassGen, a Docker engine or long property searches, listed from the
// longest (measured by `npm test` on the 2-core machine); the rest keep
// jest's order after them.
import Sequencer from '@jest/test-sequencer'

const LONGEST_FIRST = [
  'docker/docker-mode.test.ts',
  'e2e/real-massgen.test.ts',
  // The real-model lane: one review each on the local model, minutes of CPU.
  'docker/local-model-docker.test.ts',
  'e2e/local-model.test.ts',
  // npm run eval on one injected case: three reviews on the local model.
  'e2e/eval-local-model.test.ts',
  'reliability/properties.test.ts',
  'e2e/user-config.test.ts',
  // Its runs take the live slot after docker-mode's: started at once, it
  // would hold a worker only to wait (test-support/live-slot.ts).
  'docker/context-write.test.ts',
  'e2e/triggers.test.ts',
  'e2e/artifact.test.ts',
  'security/linear.test.ts',
  'reliability/faults.test.ts',
  // Single real runs (two for review-vote): before the short files, not
  // after them.
  'e2e/review-vote.test.ts',
  'e2e/review-vote-missing-ballot.test.ts',
  'security/project-instructions.test.ts',
  'e2e/read-tools.test.ts',
  'e2e/cost-and-context.test.ts',
  'e2e/fake-massgen.test.ts',
  'security/local-sandbox.test.ts'
]

const rank = (test) => {
  const i = LONGEST_FIRST.findIndex((file) =>
    test.path.endsWith(`/__tests__/${file}`)
  )
  return i < 0 ? LONGEST_FIRST.length : i
}

export default class LongestFirst extends Sequencer {
  sort(tests) {
    // Array.prototype.sort is stable: the rest keep jest's order.
    return [...super.sort(tests)].sort((a, b) => rank(a) - rank(b))
  }
}
