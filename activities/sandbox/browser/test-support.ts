import { readdirSync, readFileSync } from 'node:fs';

/** Processes below this test process (Playwright's bwrap, everything in the sandbox), by pid and command. */
export function descendants(): Map<number, string> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const found = new Map<number, string>();
  for (const pid of parents.keys()) {
    for (let current = parents.get(pid); current !== undefined && current > 1; current = parents.get(current)) {
      if (current !== process.pid) continue;
      try {
        found.set(pid, readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!);
      } catch {
        // Gone meanwhile.
      }
      break;
    }
  }
  return found;
}
