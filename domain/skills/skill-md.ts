import type { SkillVersionContent } from './content.ts';

/**
 * Renders the Agent Skills manifest `SKILL.md` of a version: YAML frontmatter between `---`
 * lines, then the instructions exactly (no added blank line or trailing newline).
 *
 * Frontmatter keys follow the convention: `name`, `description`, `license`, `compatibility`,
 * `metadata` (a map), `allowed-tools` (space-separated). Optional keys are omitted when unset or
 * empty. Every value but `name` (already a plain-safe token) is a double-quoted scalar written
 * with JSON escapes, which YAML 1.1 and 1.2 parse identically, so any text round-trips.
 */
export function renderSkillMd(content: SkillVersionContent): string {
  const lines = ['---', `name: ${content.name}`, `description: ${quoted(content.description)}`];
  if (content.license !== null) lines.push(`license: ${quoted(content.license)}`);
  if (content.compatibility !== null) lines.push(`compatibility: ${quoted(content.compatibility)}`);
  const metadata = Object.keys(content.metadata).sort();
  if (metadata.length > 0) {
    lines.push('metadata:');
    for (const key of metadata) lines.push(`  ${quoted(key)}: ${quoted(content.metadata[key]!)}`);
  }
  if (content.allowedTools.length > 0) lines.push(`allowed-tools: ${quoted(content.allowedTools.join(' '))}`);
  lines.push('---', '');
  return lines.join('\n') + content.instructions;
}

function quoted(value: string): string {
  return JSON.stringify(value);
}
