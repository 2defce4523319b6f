// The one rule of every boolean input ('true' or 'false', any case), shared
// by settings.ts and the readers it calls (pull-filters.ts).
import { z } from 'zod'

export const bool = z
  .string()
  .trim()
  .transform((v) => v.toLowerCase())
  .pipe(z.enum(['true', 'false']))
  .transform((v) => v === 'true')

/** The input's value by the rule; undefined when it breaks the rule. */
export function parseFlag(text: string): boolean | undefined {
  const parsed = bool.safeParse(text)
  return parsed.success ? parsed.data : undefined
}
