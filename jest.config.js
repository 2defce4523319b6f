// ESM + ts-jest: test files import source with `.js` suffixes (NodeNext), which
// the moduleNameMapper strips so ts-jest can find the `.ts` file.
const common = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFilesAfterEnv: ['<rootDir>/__tests__/fast-check-seed.ts'],
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

export default {
  verbose: false,
  // Two suites at a time: end-to-end runs are mostly waiting on MassGen.
  maxWorkers: 2,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/__tests__/unit/**/*.test.ts']
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/__tests__/e2e/**/*.test.ts']
    },
    {
      ...common,
      displayName: 'security',
      testMatch: ['<rootDir>/__tests__/security/**/*.test.ts']
    },
    {
      ...common,
      displayName: 'reliability',
      testMatch: ['<rootDir>/__tests__/reliability/**/*.test.ts']
    }
  ]
}
