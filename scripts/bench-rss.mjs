// Preloaded into the action's Node process by scripts/bench.ts
// (`node --import scripts/bench-rss.mjs dist/index.js`): at exit it writes the
// process's own peak RSS, the peaks of its V8 heap and of its off-heap memory
// (sampled every 50 ms), and its start and end times to BENCH_RSS_FILE.
// Passed as a Node argument, not NODE_OPTIONS, so MassGen's children never
// load it.
import { writeFileSync } from 'node:fs'

const file = process.env.BENCH_RSS_FILE
if (file) {
  const peak = { heapUsed: 0, heapTotal: 0, external: 0 }
  const sample = () => {
    const m = process.memoryUsage()
    for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], m[k])
  }
  setInterval(sample, 50).unref()
  process.on('exit', () => {
    sample()
    writeFileSync(
      file,
      JSON.stringify({
        // KiB, like /proc's VmHWM.
        maxRssKiB: process.resourceUsage().maxRSS,
        peakHeapUsedMiB: peak.heapUsed / 2 ** 20,
        peakHeapTotalMiB: peak.heapTotal / 2 ** 20,
        peakExternalMiB: peak.external / 2 ** 20,
        startMs: performance.timeOrigin,
        exitMs: Date.now()
      })
    )
  })
}
