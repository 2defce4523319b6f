#!/usr/bin/env node
// Replays MassGen 0.1.97's recorded config-validation failure
// (__fixtures__/massgen/config-error): its stdout and stderr, then exit 1.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

const fixture = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../__fixtures__/massgen/config-error'
)
process.stderr.write(fs.readFileSync(path.join(fixture, 'stderr-tail.txt')))
process.stdout.write(fs.readFileSync(path.join(fixture, 'stdout.txt')))
process.exitCode = Number(
  fs.readFileSync(path.join(fixture, 'exit-code.txt'), 'utf8').trim() || 1
)
