/** The host identity bubblewrap (and so every sandboxed process) runs as. Never root. */
export type SandboxUser = { uid: number; gid: number };
