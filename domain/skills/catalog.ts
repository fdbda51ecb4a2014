import type { ToolDefinition } from '../agent-config/index.ts';

/**
 * Skills in runs, with progressive disclosure as in the Agent Skills format: the model's
 * instructions carry a catalog (name and description of each usable Skill); the `load_skill`
 * platform tool returns one Skill's instructions and the list of its files, and one file's
 * content when asked for a `path`. A sandboxed agent also finds the files, read-only, under
 * `SKILLS_WORKSPACE_DIR/<name>/`.
 */

export const LOAD_SKILL_TOOL_NAME = 'load_skill';

/** Where a sandboxed session's Skill files are, relative to the workspace. */
export const SKILLS_WORKSPACE_DIR = '.svc/skills';

export type CatalogSkill = { name: string; description: string };

/** The catalog appended to the system prompt; empty when no Skill is usable. */
export function renderSkillCatalog(skills: readonly CatalogSkill[], options: { sandboxed: boolean }): string {
  if (skills.length === 0) return '';
  const lines = [
    '',
    '',
    '## Skills',
    `Skills are instructions for particular tasks. Before a task that one of them covers, call \`${LOAD_SKILL_TOOL_NAME}\` with its name to read its instructions${
      options.sandboxed
        ? `; its files are also in the workspace under \`${SKILLS_WORKSPACE_DIR}/<name>/\` (read-only)`
        : ` and the list of its files, and with \`path\` to read one file`
    }.`,
    ...skills.map((skill) => `- ${skill.name}: ${skill.description}`),
  ];
  return lines.join('\n');
}

/** The instructions a run's model turns use: the version's system prompt plus the Skill catalog. */
export const renderRunInstructions = (systemPrompt: string, skills: readonly CatalogSkill[], options: { sandboxed: boolean }) =>
  systemPrompt + renderSkillCatalog(skills, options);

/** The Skill loader as a pinned tool definition (mounted when the version binds Skills). */
export const loadSkillToolDefinition: ToolDefinition = {
  schemaVersion: 1,
  name: LOAD_SKILL_TOOL_NAME,
  description: "Loads one of the session's Skills: its instructions and the list of its files; with `path`, the content of that file instead.",
  owner: 'platform',
  approval: 'never',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'The Skill name from the catalog' },
      path: { type: 'string', description: 'A file of the Skill, as listed by a first load' },
    },
    required: ['name'],
    additionalProperties: false,
  } as ToolDefinition['inputSchema'],
  outputSchema: { type: 'object', properties: {}, required: [], additionalProperties: true } as ToolDefinition['outputSchema'],
};
