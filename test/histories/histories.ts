import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import proto from '@temporalio/proto';
import { FAKE_KEYS } from '../fixtures/model-vendors/catalog-server.ts';

/**
 * The golden histories of this folder and what the replay test and the recorder both check on
 * them. A history is Temporal's JSON history format (`historyToJSON`, `temporal workflow show
 * --output json`), so payloads are base64: secrets are looked for in the decoded text too.
 */
export const HISTORIES_DIR = path.dirname(fileURLToPath(import.meta.url));

// The SDK's historyToJSON/historyFromJSON (@temporalio/common/lib/proto-utils) throw "type must
// be a Type" in this install: @temporalio/common and @temporalio/proto each get a nested copy of
// protobufjs 8 (npm keeps @grpc/proto-loader's protobufjs 7 at the top), and common's protojson
// rejects the proto package's reflection types by `instanceof`. These two do what the SDK's do
// with the protojson of the copy @temporalio/proto itself loads: the same Temporal JSON format.
type ProtoJson = {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options: { ignoreUnknownFields: boolean }): unknown;
};
const requireBesideProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
const protoJson = requireBesideProto('protobufjs/ext/protojson') as ProtoJson;
const historyType = (proto as unknown as { lookupType(name: string): { fromObject(value: unknown): unknown } }).lookupType('temporal.api.history.v1.History');

/** A history (say, from `handle.fetchHistory()`) as Temporal's JSON history text, indented. */
export function historyToJson(history: History): string {
  return `${JSON.stringify(protoJson.toJson(historyType, historyType.fromObject(history)), null, 2)}\n`;
}

/** A history read back from Temporal's JSON history format, as `Worker.runReplayHistory` takes it. */
export function historyFromJson(json: unknown): History {
  return protoJson.fromJson(historyType, json, { ignoreUnknownFields: true }) as History;
}

/** Every golden history: the file name without `.json`, its parsed JSON and its text. */
export function goldenHistories(): Array<{ name: string; json: unknown; text: string }> {
  return readdirSync(HISTORIES_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const text = readFileSync(path.join(HISTORIES_DIR, file), 'utf8');
      return { name: file.slice(0, -'.json'.length), json: JSON.parse(text) as unknown, text };
    });
}

/** Every string in the history, plus the decoded text of every base64 string (payload data, metadata). */
function searchableText(json: unknown): string {
  const parts: string[] = [];
  const visit = (value: unknown) => {
    if (typeof value === 'string') {
      parts.push(value);
      if (value.length >= 4 && value.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(value)) parts.push(Buffer.from(value, 'base64').toString('utf8'));
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') Object.entries(value).forEach(([key, inner]) => (parts.push(key), visit(inner)));
  };
  visit(json);
  return parts.join('\n');
}

/**
 * What looks like a secret in a history: a fake vendor key (test/fixtures/model-vendors), a
 * webhook signing secret (`whsec_`), an API key (`svc_` and 43 base64url characters), or one of
 * `known` (secrets the recorder used). Returns labels, never the secret itself.
 */
export function findSecrets(historyText: string, known: string[] = []): string[] {
  const text = `${historyText}\n${searchableText(JSON.parse(historyText))}`;
  const found: string[] = [];
  for (const [type, key] of Object.entries(FAKE_KEYS)) if (text.includes(key)) found.push(`the fake ${type} provider key`);
  if (text.includes('whsec_')) found.push('a webhook signing secret (whsec_)');
  if (/svc_[A-Za-z0-9_-]{40,}/.test(text)) found.push('an API key (svc_)');
  known.forEach((secret, index) => {
    if (text.includes(secret)) found.push(`known secret #${index + 1}`);
  });
  return found;
}

type HistoryEvent = Record<string, any> & { eventType?: string };

/** What a history covers: event count, activities, local activities (markers), signals, timers, and how it ends. */
export function summarize(json: unknown) {
  const events = ((json as { events?: HistoryEvent[] }).events ?? []) as HistoryEvent[];
  const unique = (values: string[]) => [...new Set(values)];
  const localActivities = events.flatMap((event) => {
    const details = event.markerRecordedEventAttributes?.details;
    if (!details) return [];
    const match = /"activity_type"\s*:\s*"([^"]+)"|"activityType"\s*:\s*"([^"]+)"/.exec(searchableText(details));
    return match ? [match[1] ?? match[2]!] : [];
  });
  return {
    events: events.length,
    activities: unique(events.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? [])),
    localActivities: unique(localActivities),
    signals: unique(events.flatMap((event) => event.workflowExecutionSignaledEventAttributes?.signalName ?? [])),
    timers: events.filter((event) => event.timerStartedEventAttributes).length,
    last: events.at(-1)?.eventType,
  };
}
