// Walking a folder the run wrote: regular files only, links never followed.
// The walk lives with the rest of the careful file access in agent-files.ts.
export { walkFiles, type WalkedFile } from './agent-files.js'
