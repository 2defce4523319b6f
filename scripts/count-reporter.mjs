// A jest reporter that writes the run's counts, and nothing else, to the file
// named by MASSGEN_ACTION_TEST_COUNTS. `--json` serialises every test's
// failure, and one failure holding a circular error object lost the whole
// report (and so the count); numbers cannot.
import * as fs from 'node:fs'

class CountReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.MASSGEN_ACTION_TEST_COUNTS
    if (!file) return
    const counts = {
      passed: results.numPassedTests,
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      skipped: results.numPendingTests + results.numTodoTests
    }
    fs.writeFileSync(file, JSON.stringify(counts))
  }
}

export default CountReporter
