#!/usr/bin/env node
// A stand-in for the `docker` CLI, for Docker faults a runner cannot be made
// to show on demand. Link it as `docker` in a folder put first on PATH. It
// appends its argument array (one JSON line per call) to FAKE_DOCKER_RECORD.
// FAKE_DOCKER_MODE:
//   no-daemon    `docker info` fails as it does when the daemon is down
//   pull-fails   the daemon answers, the image is absent and cannot be pulled
//   ok           the daemon answers and the image is present (the default)
import * as fs from 'node:fs'

const args = process.argv.slice(2)
const mode = process.env.FAKE_DOCKER_MODE || 'ok'
if (process.env.FAKE_DOCKER_RECORD) {
  fs.appendFileSync(process.env.FAKE_DOCKER_RECORD, JSON.stringify(args) + '\n')
}

const fail = (message, code = 1) => {
  process.stderr.write(message + '\n')
  process.exit(code)
}
const noDaemon =
  'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?'
const [command, sub] = args

if (mode === 'no-daemon' && command !== '--version') fail(noDaemon)
switch (command) {
  case '--version':
    console.log('Docker version 28.0.4, build b8034c0')
    break
  case 'info':
    console.log('28.0.4')
    break
  case 'image':
    if (sub !== 'inspect') fail(`unknown image command ${sub}`)
    if (mode === 'pull-fails')
      fail(`Error response from daemon: No such image: ${args.at(-1)}`)
    console.log('sha256:' + 'f'.repeat(64))
    break
  case 'pull':
    if (mode === 'pull-fails') {
      fail(
        `Error response from daemon: manifest for ${args.at(-1)} not found: manifest unknown: manifest unknown`
      )
    }
    console.log(`${args.at(-1)}`)
    break
  case 'ps':
    // No leftover containers.
    break
  case 'inspect':
  case 'rm':
    break
  default:
    fail(`fake docker: unsupported command ${JSON.stringify(args)}`, 125)
}
