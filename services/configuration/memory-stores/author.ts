import type { MemoryAuthor } from '../../../db/schema/index.ts';
import type { Actor } from '../../kernel/service-context.ts';

export const principalAuthor = (actor: Actor): MemoryAuthor => ({ type: 'principal', principalId: actor.principalId, apiKeyId: actor.apiKeyId });
