// A folder handed to Docker as a read-only bind mount: `--mount` takes
// comma-separated fields, so a path that could be read as more fields is
// refused, never quoted.
/**
 * A read-only bind mount. `--mount` takes comma-separated fields: a path
 * with a comma or a quote would be read as more fields, so it is refused
 * (the context path is the action's own folder or the user's input).
 */
export function bindMount(source: string, target: string): string {
  for (const p of [source, target])
    if (!p.startsWith('/') || /[,"\n\r]/.test(p))
      throw new Error(
        `Docker mode cannot mount '${p}' for the agents' read tools: an absolute path without commas or quotes is needed.`
      )
  return `type=bind,source=${source},target=${target},readonly`
}
