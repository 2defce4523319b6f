// The real-model lane, local mode: the bundled action reviews the small
// sample pull request with the real MassGen and two agents on a real model
// running here on the CPU (test-support/local-model.ts, SmolLM2-135M, no key;
// provisioned by scripts/fetch-model.sh). One run; what the model says is
// never asserted, only the shape of what the action made of it.
import { afterAll, beforeAll, describe, jest } from '@jest/globals'
import { inLiveSlot } from '../../test-support/live-slot.js'
import { massgenBinary } from '../../test-support/massgen-binary.js'
import {
  closeLocalReview,
  localReview,
  type LocalReview
} from '../../test-support/local-review.js'
import { itHasTheShapeOfAReview } from '../../test-support/local-review-shape.js'

// A model on the CPU of a loaded machine: the run's own bound is its
// max-duration (1800 s); this only keeps a stuck run from holding the suite.
jest.setTimeout(2_700_000)

let review: LocalReview
beforeAll(async () => {
  review = await inLiveSlot((release) =>
    localReview(massgenBinary(), { release })
  )
}, 2_700_000)
afterAll(async () => {
  if (review) await closeLocalReview(review)
})

describe('a review by two agents on the local model, local mode', () => {
  itHasTheShapeOfAReview(() => review)
})
