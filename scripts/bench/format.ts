// Figures as the bench's table shows them, and the table itself.
import * as os from 'node:os'

export type Row = [what: string, value: string, detail: string, target: string]

/** The median of the numbers among `xs` (the lower one of an even count). */
export function med(xs: (number | undefined)[]): number | undefined {
  const v = xs
    .filter((x): x is number => typeof x === 'number' && Number.isFinite(x))
    .sort((a, b) => a - b)
  return v.length ? v[Math.floor((v.length - 1) / 2)] : undefined
}

export const ms = (x?: number): string =>
  x === undefined ? 'n/a' : `${Math.round(x)} ms`

export const s = (x?: number): string =>
  x === undefined ? 'n/a' : `${(x / 1000).toFixed(2)} s`

export const mib = (x?: number): string =>
  x === undefined
    ? 'n/a'
    : `${x.toFixed(0)} MiB (${(x * 1.048576).toFixed(0)} MB)`

export function heap(r: { heapMiB?: number; heapUsedMiB?: number }): string {
  return r.heapMiB === undefined
    ? ''
    : `V8 heap peak ${r.heapMiB.toFixed(0)} MiB (used ${(r.heapUsedMiB ?? 0).toFixed(0)})`
}

export function spread(
  xs: (number | undefined)[],
  f: (x?: number) => string
): string {
  return `(${xs.map((x) => f(x)).join(', ')})`
}

/** `a / b` to `digits`, or n/a when either is missing. */
export function ratio(a?: number, b?: number, digits = 2): string {
  return a === undefined || b === undefined ? 'n/a' : (a / b).toFixed(digits)
}

/** The rows as one Markdown table, then the machine it ran on. */
export function printTable(rows: Row[]): void {
  const header: Row = ['what', 'value', 'detail', 'target']
  const all = [header, ...rows]
  const width = header.map((_, i) =>
    Math.max(...all.map((r) => String(r[i]).length))
  )
  const line = (r: Row) =>
    `| ${r.map((c, i) => String(c).padEnd(width[i] ?? 0)).join(' | ')} |`
  console.log(line(header))
  console.log(`| ${width.map((w) => '-'.repeat(w)).join(' | ')} |`)
  for (const r of rows) console.log(line(r))
  console.log(
    `\n${new Date().toISOString()}, ${os.cpus().length} CPUs, Node ${process.versions.node}, ${os.platform()} ${os.arch()}`
  )
}
