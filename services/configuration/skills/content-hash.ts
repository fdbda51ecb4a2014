import { createHash } from 'node:crypto';
import { canonicalVersionContent, type SkillVersionContent } from '../../../domain/skills/content.ts';

/** Lowercase hex SHA-256 of the canonical serialization (see `canonicalVersionContent`). */
export function skillContentHash(content: SkillVersionContent): string {
  return createHash('sha256').update(canonicalVersionContent(content), 'utf8').digest('hex');
}
