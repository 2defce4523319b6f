#!/usr/bin/env node
// A MassGen stand-in that does what any agent command could: print the
// environment it was given, as a variable list, as /proc/self/environ and as
// a child shell sees it, into its answer (so whatever it saw would reach the
// posted text), then finishes as fake-massgen's `success` scenario does.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'

const MAX = 64 * 1024
const own = Object.entries(process.env).map(([k, v]) => `${k}=${v}`)
const proc = fs
  .readFileSync('/proc/self/environ', 'latin1')
  .slice(0, MAX)
  .split('\0')
  .filter(Boolean)
const child = spawnSync('sh', ['-c', "tr '\\0' '\\n' < /proc/self/environ"], {
  encoding: 'latin1',
  timeout: 10_000,
  maxBuffer: MAX
})
  .stdout.split('\n')
  .filter(Boolean)
const names = (lines) => lines.map((l) => l.split('=')[0]).join(',')
process.env.FAKE_MASSGEN_ANSWER = [
  'Environment report.',
  `NAMES(env): ${names(own)}`,
  `NAMES(proc): ${names(proc)}`,
  `NAMES(child): ${names(child)}`,
  ...own.map((l) => `ENV ${l}`),
  ...proc.map((l) => `PROC ${l}`),
  ...child.map((l) => `CHILD ${l}`)
].join('\n')
await import('./fake-massgen.mjs')
