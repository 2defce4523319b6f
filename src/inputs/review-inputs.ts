// The inputs of reviews across pushes: `review-scope` and `resolve-threads`.
import { Defaults, Inputs } from '../core/constants.js'
import type { Settings } from '../core/types.js'
import { showValue } from '../core/text.js'

const SCOPES = ['incremental', 'full'] as const
const RESOLVE = ['unanswered', 'answered-too', 'off'] as const

function oneOf<T extends string>(
  name: string,
  value: string,
  allowed: readonly T[],
  fallback: T,
  errors: string[]
): T {
  const v = (value || fallback).toLowerCase()
  if ((allowed as readonly string[]).includes(v)) return v as T
  errors.push(
    `Input '${name}': got '${showValue(value)}', expected ${allowed
      .map((a) => `'${a}'`)
      .join(', ')
      .replace(/, ([^,]*)$/, ' or $1')}`
  )
  return fallback
}

export function readReviewInputs(
  raw: (name: string) => string,
  errors: string[]
): Pick<Settings, 'reviewScope' | 'resolveThreads'> {
  return {
    reviewScope: oneOf(
      Inputs.ReviewScope,
      raw(Inputs.ReviewScope),
      SCOPES,
      Defaults.ReviewScope,
      errors
    ),
    resolveThreads: oneOf(
      Inputs.ResolveThreads,
      raw(Inputs.ResolveThreads),
      RESOLVE,
      Defaults.ResolveThreads,
      errors
    )
  }
}
