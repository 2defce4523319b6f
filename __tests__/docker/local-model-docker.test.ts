// The real-model lane, Docker mode: the same review as
// __tests__/e2e/local-model.test.ts (two agents on the local model, the real
// MassGen with its [docker] extra, a real engine and the runtime image).
// MassGen runs on the runner and reaches the model server on the loopback,
// as it reaches the scripted one in docker-mode.test.ts; the agents' tools
// run in their containers. One run; structure asserted, never content.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { inLiveSlot } from '../../test-support/live-slot.js'
import { massgenBinary } from '../../test-support/massgen-binary.js'
import {
  closeLocalReview,
  localReview,
  type LocalReview
} from '../../test-support/local-review.js'
import { itHasTheShapeOfAReview } from '../../test-support/local-review-shape.js'
import { containersUnder } from '../../test-support/processes.js'
import { TEST_IMAGE } from '../../test-support/fixtures.js'

jest.setTimeout(2_700_000)

let review: LocalReview
beforeAll(async () => {
  const workspace = fs.mkdtempSync(
    path.join(os.tmpdir(), 'local-model-docker-')
  )
  fs.writeFileSync(path.join(workspace, 'README.md'), 'the repository\n')
  fs.chmodSync(workspace, 0o777)
  review = await inLiveSlot((release) =>
    localReview(massgenBinary('docker'), {
      release,
      inputs: { docker: 'true', 'docker-image': TEST_IMAGE },
      run: { workspace, hideDockerenv: true }
    })
  )
}, 2_700_000)
afterAll(async () => {
  if (review) await closeLocalReview(review)
})

describe('a review by two agents on the local model, Docker mode', () => {
  itHasTheShapeOfAReview(() => review)

  it("ran in Docker mode (the agents' read server is a `docker run`) and left no container behind", () => {
    const { run } = review
    const config = fs.readFileSync(run.outputs['config-file'] ?? '', 'utf8')
    expect(config).toMatch(/command: \S*\/docker\n/)
    expect(containersUnder(run.dir)).toEqual([])
  })
})
