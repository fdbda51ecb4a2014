import type { Schema } from './route-doc.ts';
import * as access from '../../domain/public-shapes/access.ts';
import * as agents from '../../domain/public-shapes/agents.ts';
import * as configurationBackup from '../../domain/public-shapes/configuration-backup.ts';
import * as connections from '../../domain/public-shapes/connections.ts';
import * as delegations from '../../domain/public-shapes/delegations.ts';
import * as eventWebhooks from '../../domain/public-shapes/event-webhooks.ts';
import * as events from '../../domain/public-shapes/events.ts';
import * as mcp from '../../domain/public-shapes/mcp.ts';
import * as memory from '../../domain/public-shapes/memory.ts';
import * as runs from '../../domain/public-shapes/runs.ts';
import * as schedules from '../../domain/public-shapes/schedules.ts';
import * as sessions from '../../domain/public-shapes/sessions.ts';
import * as skills from '../../domain/public-shapes/skills.ts';
import * as toolCalls from '../../domain/public-shapes/tool-calls.ts';
import * as uploads from '../../domain/public-shapes/uploads.ts';
import * as usage from '../../domain/public-shapes/usage.ts';

/**
 * Every exported response shape of domain/public-shapes, by its name without `Shape`
 * (`PublicRunShape` → `PublicRun`): the document's `components.schemas`, which operations and
 * other shapes reference with `$ref`, so each shape has one definition and one generated type.
 */
export const NAMED_SHAPES: Readonly<Record<string, Schema>> = Object.fromEntries(
  [
    access,
    agents,
    configurationBackup,
    connections,
    delegations,
    eventWebhooks,
    events,
    mcp,
    memory,
    runs,
    schedules,
    sessions,
    skills,
    toolCalls,
    uploads,
    usage,
  ]
    .flatMap((module) => Object.entries(module))
    .filter(([name]) => name.endsWith('Shape'))
    .map(([name, schema]) => [name.slice(0, -'Shape'.length), schema as Schema])
    .sort(([a], [b]) => (a! < b! ? -1 : 1)),
);
