import * as v from 'valibot';

/**
 * Sandbox snapshots (spec 1 "Sandbox, storage, MCP"): registered root filesystems a sandbox
 * boots from, with the state, image, resources, region and class the provider reports. The local
 * driver's registry is a server setting (SVC_SANDBOX_SNAPSHOTS_FILE); every snapshot in it is
 * visible to every `sandbox_vendor` connection. `rootfs` is operator data and never leaves the
 * server.
 *
 * Root filesystems: `host-usr` is a read-only view of the host's `/usr` (with the usual `/bin`,
 * `/lib`, `/lib64`, `/sbin` links) — the first snapshot an operator adds, and the built-in one
 * when no registry file is configured; `directory` is a complete root (for example one made with
 * debootstrap) mounted read-only at `/`.
 */

export const SNAPSHOT_STATES = ['active', 'pending', 'failed', 'retired'] as const;
export type SnapshotState = (typeof SNAPSHOT_STATES)[number];

const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'));
const Label = (name: string) =>
  v.pipe(v.string(`${name} must be a string`), v.minLength(1, `${name} must not be empty`), v.maxLength(200, `${name} must be at most 200 characters`));
const Positive = (name: string) =>
  v.pipe(v.number(`${name} must be a number`), v.integer(`${name} must be an integer`), v.minValue(1, `${name} must be at least 1`));
const Timestamp = v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 timestamp'));

export const SnapshotEntry = v.strictObject({
  id: Uuid,
  name: Label('name'),
  state: v.picklist(SNAPSHOT_STATES, `state must be one of ${SNAPSHOT_STATES.join(', ')}`),
  image: Label('image'),
  resource: v.strictObject({ cpu: Positive('cpu'), memoryMb: Positive('memoryMb'), diskMb: Positive('diskMb') }),
  region: Label('region'),
  class: Label('class'),
  rootfs: v.variant('kind', [
    v.strictObject({ kind: v.literal('host-usr') }),
    v.strictObject({ kind: v.literal('directory'), path: v.pipe(v.string(), v.startsWith('/', 'rootfs.path must be absolute')) }),
  ]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Snapshot = v.InferOutput<typeof SnapshotEntry>;

const Registry = v.pipe(
  v.array(SnapshotEntry, 'the snapshot registry must be a JSON array'),
  v.maxLength(1000, 'the snapshot registry may hold at most 1000 snapshots'),
  v.check((entries) => new Set(entries.map((entry) => entry.id.toLowerCase())).size === entries.length, 'snapshot ids must be unique'),
);

/** Validates a registry file's JSON; throws an Error naming the first bad entry path. */
export function parseSnapshotRegistry(json: unknown): Snapshot[] {
  const result = v.safeParse(Registry, json);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = issue.path?.map((item) => String(item.key)).join('.') ?? '(registry)';
  throw new Error(`${path}: ${issue.message}`);
}

/** The snapshot of a server without a registry file: the host's `/usr`, read-only. */
export const BUILT_IN_SNAPSHOT: Snapshot = {
  id: '5a9d0c4e-6b1f-4c3a-9e2d-7f8a1b2c3d4e',
  name: 'host-usr',
  state: 'active',
  image: 'host /usr (read-only)',
  resource: { cpu: 1, memoryMb: 2048, diskMb: 1024 },
  region: 'local',
  class: 'standard',
  rootfs: { kind: 'host-usr' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

/** What the API shows of a snapshot: no root filesystem path, no build details. */
export type PublicSnapshot = Omit<Snapshot, 'rootfs'> & { available: boolean };

export function toPublicSnapshot(snapshot: Snapshot): PublicSnapshot {
  const { rootfs: _rootfs, ...shown } = snapshot;
  return { ...shown, available: snapshot.state === 'active' };
}
