// Types of scripts/third-party-notices.mjs, for the tests that import it.
export declare const SEPARATOR: string
export declare function bundledPackages(stats: unknown, cwd: string): string[]
export declare function notices(folders: string[]): {
  text: string
  missing: string[]
}
