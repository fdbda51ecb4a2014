import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import * as path from 'node:path';

/** What `svc login` stores: the service, the API key and the project to act in. */
export type Credentials = { baseUrl: string; apiKey: string; projectId: string };

/** `$SVC_CONFIG_DIR`, else `$XDG_CONFIG_HOME/svc`, else `~/.config/svc`. */
export function configDir(env: NodeJS.ProcessEnv): string {
  return env.SVC_CONFIG_DIR ?? path.join(env.XDG_CONFIG_HOME ?? path.join(homedir(), '.config'), 'svc');
}

const fileOf = (env: NodeJS.ProcessEnv) => path.join(configDir(env), 'credentials.json');

/** Written with mode 0600 (the folder 0700): the API key is readable by its owner only. */
export async function saveCredentials(env: NodeJS.ProcessEnv, credentials: Credentials): Promise<string> {
  const file = fileOf(env);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600); // an existing file keeps its old mode on write
  return file;
}

export async function loadCredentials(env: NodeJS.ProcessEnv): Promise<Credentials | null> {
  try {
    return JSON.parse(await readFile(fileOf(env), 'utf8')) as Credentials;
  } catch {
    return null;
  }
}
