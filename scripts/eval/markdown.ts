// The evaluation's Markdown: the totals side by side, then each case.
import type { ConfigResult, EvalReport } from './evaluate.ts'

const pct = (x: number | null): string =>
  x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`
const usd = (x: number | null): string =>
  x === null ? 'n/a' : `$${x.toFixed(4)}`
const count = (x: number | null): string =>
  x === null ? 'n/a' : String(Math.round(x))

function cell(r: ConfigResult | undefined): string {
  if (!r) return ''
  if (r.status === 'failed') return 'failed'
  return `${r.tp}/${r.fp}/${r.fn}`
}

export function markdownOf(report: EvalReport): string {
  const names = Object.keys(report.configs)
  const lines = [
    '| configuration | tp | fp | of which on tp:false | fn | precision | recall | F1 | inline | cost | tokens in / out | seconds | cases scored / failed |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...names.map((n) => {
      const t = report.configs[n]!
      return `| ${n} | ${t.tp} | ${t.fp} | ${t.false_alarm_hits} | ${t.fn} | ${pct(t.precision)} | ${pct(t.recall)} | ${pct(t.f1)} | ${t.inline} | ${usd(t.cost_usd)} | ${count(t.tokens_in)} / ${count(t.tokens_out)} | ${t.seconds.toFixed(1)} | ${t.cases_scored} / ${t.cases_failed} |`
    }),
    '',
    `Totals over the ${Object.keys(report.cases).length - report.excluded_cases.length} case(s) every configuration scored` +
      (report.excluded_cases.length
        ? `; left out (a run failed): ${report.excluded_cases.join(', ')}.`
        : '.') +
      ` Line tolerance ${report.tolerance}; min-agreement ${report.limits.minAgreement}, min-severity ${report.limits.minSeverity}.`,
    '',
    `| case | known | ${names.join(' | ')} |`,
    `| --- | ---: | ${names.map(() => '---').join(' | ')} |`,
    ...Object.entries(report.cases).map(
      ([name, r]) =>
        `| ${name} | ${r.expected} | ${names.map((n) => cell(r.configs[n])).join(' | ')} |`
    ),
    '',
    'Each case cell: tp/fp/fn, or failed (the run did not finish; never scored as no findings).',
    ''
  ]
  return lines.join('\n')
}
