// Property tests explore new cases on every local run, but CI (CI=true)
// replays a fixed seed, so a landing never hangs on a case no one has seen.
// A failure prints its seed: rerun with FC_SEED=<seed> to reproduce it.
import fc from 'fast-check'

const seed = process.env.FC_SEED ?? (process.env.CI ? '20261130' : undefined)
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) })
