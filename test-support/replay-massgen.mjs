#!/usr/bin/env node
// Replays one run that MassGen 0.1.97 really made (__fixtures__/massgen/<name>,
// named by REPLAY_MASSGEN_FIXTURE): its log folder under the default log base
// (`.massgen/massgen_logs` in the working directory, where the action lets
// MassGen write), its stdout, the tail of its stderr and its exit code. The
// recording's placeholders become this run's paths, so the action reads the
// recorded files exactly as it would read a live run's. Used where a MassGen
// fact is proven by the recording and the test is about the action's wiring
// (docs/test-contracts.md).
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

const name = process.env.REPLAY_MASSGEN_FIXTURE ?? ''
const fixture = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '__fixtures__',
  'massgen',
  name
)
if (!name || !fs.existsSync(path.join(fixture, 'exit-code.txt'))) {
  console.error(`replay-massgen: no recorded run '${name}' in ${fixture}`)
  process.exit(2)
}

const logBase = path.resolve('.massgen', 'massgen_logs')
const places = {
  '{{LOG_BASE}}': logBase,
  '{{CWD}}': process.cwd(),
  '{{WORK}}': path.dirname(process.cwd()),
  '{{BASE_URL}}': 'http://127.0.0.1:9/v1',
  '{{REPO}}': path.dirname(path.dirname(fixture))
}

/** The recording's text with this run's paths in place of its placeholders. */
function localise(text) {
  return Object.entries(places).reduce(
    (out, [placeholder, value]) => out.split(placeholder).join(value),
    text
  )
}

/**
 * How far the recording's clock is moved: its end (ended-at.txt, in the
 * local time events.jsonl is written in) becomes now, so the events keep
 * their distance from the end, as in a live run.
 */
const endedAt = fs.existsSync(path.join(fixture, 'ended-at.txt'))
  ? new Date(fs.readFileSync(path.join(fixture, 'ended-at.txt'), 'utf8').trim())
  : undefined
const shiftMs = endedAt ? Date.now() - endedAt.getTime() : 0

/** A local date-time with no zone, as MassGen writes it (microseconds). */
function localStamp(ms, micros) {
  const d = new Date(ms)
  const two = (n) => String(n).padStart(2, '0')
  return (
    `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T` +
    `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.` +
    `${String(d.getMilliseconds()).padStart(3, '0')}${micros}`
  )
}

/** events.jsonl's timestamps moved by shiftMs. */
function retimed(text) {
  if (!shiftMs) return text
  return text.replace(
    /"timestamp": "(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{3})(\d{0,3}))?"/g,
    (_, stamp, ms = '000', micros = '') =>
      `"timestamp": "${localStamp(new Date(`${stamp}.${ms}`).getTime() + shiftMs, micros)}"`
  )
}

/** Copies the recorded log tree, placeholders filled in, file by file. */
function copyLogs(from, to) {
  fs.mkdirSync(to, { recursive: true })
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name)
    const target = path.join(to, entry.name)
    if (entry.isDirectory()) copyLogs(source, target)
    else {
      const text = localise(fs.readFileSync(source, 'utf8'))
      fs.writeFileSync(
        target,
        entry.name === 'events.jsonl' ? retimed(text) : text
      )
    }
  }
}

const read = (file) => fs.readFileSync(path.join(fixture, file), 'utf8')
if (fs.existsSync(path.join(fixture, 'logs')))
  copyLogs(path.join(fixture, 'logs'), logBase)
process.stderr.write(localise(read('stderr-tail.txt')))
process.stdout.write(localise(read('stdout.txt')))
process.exitCode = Number(read('exit-code.txt').trim())
