import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '__fixtures__/'] },
  js.configs.recommended,
  // Rules that read the types: a promise nobody awaits, an `any` that
  // spreads, a template that prints an object.
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname
      }
    }
  },
  // Plain JavaScript (configs, scripts/*.mjs, the stand-ins) has no types to
  // read: every value would be `any`. The TypeScript files carry the logic.
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked
  },
  // Scripts run by Node 24 directly, with '.ts' imports: their own tsconfig.
  {
    files: ['scripts/**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: './tsconfig.scripts.json'
      }
    }
  },
  {
    files: ['**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'error' }
  },
  // Test doubles implement async interfaces with `async` methods that have
  // nothing to await; that is their point, not a slip.
  {
    files: ['__tests__/**/*.ts', 'test-support/**/*.ts'],
    rules: { '@typescript-eslint/require-await': 'off' }
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }
      ]
    }
  }
)
