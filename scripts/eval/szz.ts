export function corpusFromGit(_o: {
  repo: string
  out: string
  maxCases: number
  say: (l: string) => void
}): string[] {
  return []
}
