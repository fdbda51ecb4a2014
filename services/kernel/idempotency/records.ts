import { hash } from 'node:crypto';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { prepared } from '../../../db/prepared.ts';
import { idempotencyRecords } from '../../../db/schema/index.ts';
import { canonicalJson } from '../../../domain/canonical-json.ts';
import { IDEMPOTENCY_REPLAY_WINDOW_MS } from '../../../domain/idempotency.ts';

export type IdempotencyScope = { principalId: string; route: string; idempotencyKey: string };
/** A stored response; the body stays JSON text so a replay sends it without re-serializing. */
export type StoredResponse = { status: number; bodyText: string | null; headers: Record<string, string>; requestHash: string; createdAt: Date };

/** Hash of the request body as a JSON value (so key order and whitespace do not matter). */
export function hashRequestBody(text: string): string {
  let material = `raw:${text}`;
  if (text.trim() !== '') {
    try {
      material = `json:${canonicalJson(JSON.parse(text))}`;
    } catch {
      // Not JSON: the route will reject it; hash the raw text.
    }
  } else {
    material = 'empty';
  }
  return hash('sha256', material);
}

const whereScope = (scope: IdempotencyScope) =>
  and(
    eq(idempotencyRecords.principalId, scope.principalId),
    eq(idempotencyRecords.route, scope.route),
    eq(idempotencyRecords.idempotencyKey, scope.idempotencyKey),
  );

/** The completed record for this scope, if any (one primary-key lookup, prepared once). */
export async function findIdempotencyRecord(db: Executor, scope: IdempotencyScope): Promise<StoredResponse | null> {
  const statement = prepared(db, 'find_idempotency_record', (db) =>
    db
      .select({
        status: idempotencyRecords.responseStatus,
        bodyText: sql<string | null>`${idempotencyRecords.responseBody}::text`,
        headers: idempotencyRecords.responseHeaders,
        requestHash: idempotencyRecords.requestHash,
        createdAt: idempotencyRecords.createdAt,
      })
      .from(idempotencyRecords)
      .where(
        and(
          eq(idempotencyRecords.principalId, sql.placeholder('principalId')),
          eq(idempotencyRecords.route, sql.placeholder('route')),
          eq(idempotencyRecords.idempotencyKey, sql.placeholder('idempotencyKey')),
        ),
      )
      .prepare('find_idempotency_record'),
  );
  const [row] = await statement.execute(scope);
  return row ?? null;
}

/**
 * Claims the key inside the caller's transaction in one statement: inserts a record (with the
 * response when it is known already, else a placeholder to complete), or replaces an expired
 * record in place. Returns false when another request holds or completed the key within the
 * replay window; a concurrent claimant blocks on the primary key until the holder commits (then
 * sees a fresh record: false) or rolls back (then inserts).
 */
export async function claimIdempotencyKey(tx: Executor, input: ClaimInput): Promise<boolean> {
  const claimed = await claimIdempotencyKeyStatement(tx, input);
  return claimed.length === 1;
}

type ClaimInput = IdempotencyScope & {
  organizationId: string;
  projectId: string;
  requestHash: string;
  now: Date;
  response?: { status: number; body: unknown; headers: Record<string, string> };
};

/** `claimIdempotencyKey`'s statement, unsent: one row returned when claimed (for a statement that carries it as a CTE). */
export function claimIdempotencyKeyStatement(tx: Executor, input: ClaimInput) {
  const placeholder = {
    organizationId: input.organizationId,
    projectId: input.projectId,
    requestHash: input.requestHash,
    responseStatus: input.response?.status ?? 0,
    responseBody: input.response?.body ?? null,
    responseHeaders: input.response?.headers ?? {},
    createdAt: input.now,
  };
  return tx
    .insert(idempotencyRecords)
    .values({ principalId: input.principalId, route: input.route, idempotencyKey: input.idempotencyKey, ...placeholder })
    .onConflictDoUpdate({
      target: [idempotencyRecords.principalId, idempotencyRecords.route, idempotencyRecords.idempotencyKey],
      set: placeholder,
      setWhere: lt(idempotencyRecords.createdAt, new Date(input.now.getTime() - IDEMPOTENCY_REPLAY_WINDOW_MS)),
    })
    .returning({ principalId: idempotencyRecords.principalId });
}

export async function completeIdempotencyRecord(
  tx: Executor,
  scope: IdempotencyScope,
  response: { status: number; body: unknown; headers: Record<string, string> },
): Promise<void> {
  await tx
    .update(idempotencyRecords)
    .set({ responseStatus: response.status, responseBody: response.body, responseHeaders: response.headers })
    .where(whereScope(scope));
}

/** Forgets the record under this scope, so the next claim of it is a new request's. */
export async function forgetIdempotencyRecord(db: Executor, scope: IdempotencyScope): Promise<void> {
  await db
    .delete(idempotencyRecords)
    .where(
      and(
        eq(idempotencyRecords.principalId, scope.principalId),
        eq(idempotencyRecords.route, scope.route),
        eq(idempotencyRecords.idempotencyKey, scope.idempotencyKey),
      ),
    );
}
