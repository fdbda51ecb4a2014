import type { ProjectClient } from '../../../client/src/index.ts';

/** The preset keys an agent may name: deployment and project presets that can run now. */
export async function presetKeys(client: ProjectClient): Promise<string[]> {
  const page = await client.call('get', '/v1/projects/{projectId}/model-presets', { query: { limit: '100' } });
  return page.data.filter((preset) => preset.available).map((preset) => preset.key);
}
