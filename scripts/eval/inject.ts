export function injectCorpus(_out: string): string[] {
  return []
}
