// ESM + ts-jest: test files import source with `.js` suffixes (NodeNext), which
// the moduleNameMapper strips so ts-jest can find the `.ts` file.
const common = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFilesAfterEnv: [
    '<rootDir>/__tests__/fast-check-seed.ts',
    '<rootDir>/__tests__/teardown.ts'
  ],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      {
        useESM: true,
        tsconfig: 'tsconfig.json',
        diagnostics: { ignoreCodes: [151002] }
      }
    ]
  }
}

/**
 * One project per folder of __tests__, with its own timeout (read by
 * __tests__/teardown.ts; jest takes `testTimeout` only for the whole run).
 * Unit tests start nothing slow; the others spawn the bundle, MassGen or
 * Docker on a machine that may be loaded. A file may set a longer one.
 */
const project = (name, timeoutMs) => ({
  ...common,
  displayName: name,
  testMatch: [`<rootDir>/__tests__/${name}/**/*.test.ts`],
  globals: { projectTimeoutMs: timeoutMs }
})

export default {
  verbose: false,
  // Four files at a time on 2 cores: several wait most of their time (on a
  // deadline, a cancel, a client's retries, the live slot), and with three
  // the machine sat half idle while they did; the runs that need the
  // machine to themselves take turns through test-support/live-slot.ts.
  maxWorkers: 4,
  testSequencer: '<rootDir>/scripts/test-sequencer.mjs',
  projects: [
    project('unit', 15_000),
    project('e2e', 240_000),
    project('security', 240_000),
    project('docker', 600_000),
    // The scripts that give tests a Docker engine, image and a view without /.dockerenv.
    project('infra', 600_000),
    project('reliability', 240_000)
  ]
}
