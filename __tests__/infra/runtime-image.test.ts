// The local runtime image (scripts/build-runtime-image.sh) offers what MassGen's
// Docker mode uses of ghcr.io/massgen/mcp-runtime-sudo. Runs only where
// MASSGEN_ACTION_TEST_IMAGE names a built image and a Docker daemon answers
// (scripts/provision.sh sets both up).
import { spawnSync } from 'node:child_process'
import * as path from 'node:path'

const image = process.env.MASSGEN_ACTION_TEST_IMAGE ?? ''
const ready =
  image !== '' &&
  spawnSync('docker', ['image', 'inspect', image], {
    stdio: 'ignore',
    timeout: 20_000
  }).status === 0
const maybe = ready ? test : test.skip

function docker(args: string[]) {
  return spawnSync('docker', args, { encoding: 'utf8', timeout: 120_000 })
}

maybe(
  'runs as uid 1000 in /workspace with passwordless sudo, python3, pip, git and node',
  () => {
    // MassGen execs every command as `/bin/sh -c CMD` as the image's user.
    const probe = [
      'id -u',
      'pwd',
      'sudo -n id -u',
      'python3 -c "import sys; print(sys.version_info[:2] >= (3, 11))"',
      'python3 -m pip --version >/dev/null && echo pip',
      'git --version >/dev/null && echo git',
      'node -e "console.log(\'node\')"',
      'test -w /home/massgen && echo home-writable'
    ].join('; ')
    // With --network none sudo warns on stderr that it cannot resolve the host name, as it does in
    // upstream's image: only stdout is checked.
    const r = docker([
      'run',
      '--rm',
      '--network',
      'none',
      image,
      '/bin/sh',
      '-c',
      probe
    ])
    expect(r.status).toBe(0)
    expect(r.stdout.trim().split('\n')).toEqual([
      '1000',
      '/workspace',
      '0',
      'True',
      'pip',
      'git',
      'node',
      'home-writable'
    ])
  }
)

maybe('keeps a container alive with the command MassGen gives it', () => {
  const r = docker([
    'image',
    'inspect',
    '--format',
    '{{json .Config.Cmd}} {{.Config.User}}',
    image
  ])
  expect(r.stdout.trim()).toBe('["tail","-f","/dev/null"] massgen')
})

maybe(
  'the image is the build of the current script (a build now would be skipped)',
  () => {
    const r = spawnSync(
      'bash',
      [path.resolve('scripts/build-runtime-image.sh'), '--check', image],
      {
        encoding: 'utf8',
        timeout: 60_000
      }
    )
    expect(r.status).toBe(0)
    expect(r.stderr).toMatch(/is up to date/)
  }
)
