import { useMemo, useState, type FormEvent } from 'react';
import type { MemoryAuthor, ProjectClient, PublicMemory, PublicMemoryStore, PublicMemoryVersion } from '../../../client/src/index.ts';
import { sideBySideDiff } from '../diff.ts';
import { DiffTable } from '../components/DiffTable.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { memoryTree, sizeText, type MemoryFolder } from '../components/memoryTree.ts';
import { SimpleForm } from '../components/SimpleForm.tsx';
import { useAction } from '../components/useAction.ts';
import { useCan } from '../components/useCan.ts';
import { useResource } from '../components/useResource.ts';
import { useRowAction } from '../components/useRowAction.ts';
import { Link, navigate } from '../router.tsx';
import { useSigned } from '../session.tsx';

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
/** The first characters of a SHA-256, enough to tell versions apart at a glance (the whole hash in its title). */
const shortHash = (hash: string | null) => (hash ? hash.slice(0, 12) : '—');

/** Every page of a list, one after the other (`pageInfo.nextCursor`). */
async function allPages<T>(load: (cursor: string | undefined) => Promise<{ data: T[]; pageInfo: { nextCursor: string | null } }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await load(cursor);
    all.push(...page.data);
    cursor = page.pageInfo.nextCursor ?? undefined;
  } while (cursor);
  return all;
}

const cursorQuery = (cursor: string | undefined) => (cursor ? { cursor } : {});

/** A store's memories without their content, every page (depth 0 lists every memory, in path order). */
const loadMemories = async (client: ProjectClient, storeId: string) =>
  (
    await allPages((cursor) =>
      client.call('get', '/v1/projects/{projectId}/memory-stores/{storeId}/memories', {
        path: { storeId },
        query: { limit: '200', view: 'basic', ...cursorQuery(cursor) },
      }),
    )
  ).flatMap((item) => (item.type === 'memory' ? [item] : []));

/** One memory's versions without their content, newest first. */
const loadVersions = (client: ProjectClient, storeId: string, memoryId: string) =>
  allPages((cursor) =>
    client.call('get', '/v1/projects/{projectId}/memory-stores/{storeId}/memory-versions', {
      path: { storeId },
      query: { limit: '200', memoryId, ...cursorQuery(cursor) },
    }),
  );

function NeedsRead() {
  return (
    <section>
      <h1>Memory</h1>
      <p className="empty">
        Reading memory stores needs the <code>memory:read</code> scope.
      </p>
    </section>
  );
}

/**
 * The project's memory stores (docs/memory.md): text documents by path that outlive sessions,
 * each change a version. Each with its size and counts; create one here, open one for its
 * memories and their versions.
 */
export function MemoryScreen() {
  const { client } = useSigned();
  const can = useCan();
  const stores = useResource(
    () =>
      allPages((cursor) =>
        client.call('get', '/v1/projects/{projectId}/memory-stores', { query: { limit: '200', includeArchived: 'true', ...cursorQuery(cursor) } }),
      ),
    [client],
  );
  if (!can('memory:read')) return <NeedsRead />;
  return (
    <section>
      <h1>Memory</h1>
      <p className="muted">
        Stores of text documents addressed by path, such as <code>/customers/acme.md</code>, that outlive sessions: a session attaches stores and its agent
        reads and writes them. Every change is a version that says who wrote it.
      </p>
      <ErrorNotice error={stores.error} />
      <h2>Stores</h2>
      {stores.data && stores.data.length > 0 ? (
        <table aria-label="Memory stores">
          <thead>
            <tr>
              <th scope="col">Store</th>
              <th scope="col" className="number">
                Memories
              </th>
              <th scope="col" className="number">
                Size
              </th>
              <th scope="col" className="number">
                Versions
              </th>
              <th scope="col">State</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {stores.data.map((store) => (
              <tr key={store.id}>
                <th scope="row">
                  <Link to={`/memory/${store.id}`}>{store.name}</Link>
                  {store.description ? <div className="muted small">{store.description}</div> : null}
                </th>
                <td className="number">{store.memoryCount.toLocaleString('en')}</td>
                <td className="number">{sizeText(store.sizeBytes)}</td>
                <td className="number">{store.versionCount.toLocaleString('en')}</td>
                <td>
                  <StoreState store={store} />
                </td>
                <td>
                  <time dateTime={store.createdAt}>{when(store.createdAt)}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : stores.data ? (
        <p className="empty">No memory stores yet.{can('memory:write') ? ' Create one below, then attach it to a session.' : ''}</p>
      ) : stores.loading ? (
        <p aria-busy="true">Loading memory stores…</p>
      ) : null}
      {can('memory:write') ? (
        <SimpleForm
          title="New memory store"
          submitLabel="Create store"
          doneLabel="Store created."
          fields={[
            { name: 'name', label: 'Name', required: true, hint: 'up to 255 characters' },
            { name: 'description', label: 'Description', type: 'textarea', optional: true, hint: 'what the agent finds in it' },
          ]}
          onSubmit={async (body) => {
            await client.call('post', '/v1/projects/{projectId}/memory-stores', { body: body as { name: string; description?: string } });
            await stores.reload();
          }}
        />
      ) : null}
    </section>
  );
}

function StoreState({ store }: { store: PublicMemoryStore }) {
  return store.archivedAt ? (
    <span className="badge wait" title={`Archived ${when(store.archivedAt)}: read-only for good`}>
      archived
    </span>
  ) : (
    <span className="badge good">active</span>
  );
}

/**
 * One store: its facts, its memories as a tree of folders made from their paths, and the memory
 * selected with its content, its versions (newest first) and a diff between two of them.
 */
export function MemoryStoreScreen({ storeId }: { storeId: string }) {
  const { client } = useSigned();
  const can = useCan();
  const store = useResource(() => client.call('get', '/v1/projects/{projectId}/memory-stores/{storeId}', { path: { storeId } }), [client, storeId]);
  const memories = useResource(() => loadMemories(client, storeId), [client, storeId]);
  const [selected, setSelected] = useState<string | null>(null);
  const reload = () => Promise.all([store.reload(), memories.reload()]);
  const action = useRowAction(reload);
  const tree = useMemo(() => memoryTree(memories.data ?? []), [memories.data]);
  if (!can('memory:read')) return <NeedsRead />;
  const data = store.data;
  if (!data) return store.error ? <ErrorNotice error={store.error} /> : <p aria-busy="true">Loading the store…</p>;
  const writable = can('memory:write') && !data.archivedAt;
  const chosen = memories.data?.find((memory) => memory.id === selected) ?? null;
  return (
    <section>
      <p className="crumbs">
        <Link to="/memory">Memory</Link> /
      </p>
      <div className="heading">
        <h1>{data.name}</h1>
        <StoreState store={data} />
        {can('memory:write') ? (
          <div className="actions">
            {data.archivedAt ? null : (
              <button
                type="button"
                className="small"
                disabled={action.busy}
                onClick={() =>
                  void action.act(
                    () => client.call('post', '/v1/projects/{projectId}/memory-stores/{storeId}/archive', { path: { storeId } }),
                    `Archive ${data.name}? It becomes read-only for good: sessions may still attach it read-only.`,
                  )
                }
              >
                Archive
              </button>
            )}
            <button
              type="button"
              className="small danger"
              disabled={action.busy}
              onClick={() =>
                void action.act(async () => {
                  await client.call('delete', '/v1/projects/{projectId}/memory-stores/{storeId}', { path: { storeId } });
                  navigate('/memory');
                }, `Delete ${data.name} with its ${data.memoryCount} memories and ${data.versionCount} versions? It cannot be undone.`)
              }
            >
              Delete store
            </button>
          </div>
        ) : null}
      </div>
      <dl className="facts">
        <dt>Description</dt>
        <dd>{data.description || <span className="muted">none</span>}</dd>
        <dt>Mount path</dt>
        <dd>
          <code>{data.mountPath}</code>
        </dd>
        <dt>Memories</dt>
        <dd>
          {data.memoryCount.toLocaleString('en')} · {sizeText(data.sizeBytes)}
        </dd>
        <dt>Versions</dt>
        <dd>{data.versionCount.toLocaleString('en')}</dd>
        <dt>Created</dt>
        <dd>
          <time dateTime={data.createdAt}>{when(data.createdAt)}</time>
        </dd>
      </dl>
      <ErrorNotice error={action.error ?? memories.error} />
      <div className="memory-layout">
        <nav aria-label="Memory paths" className="memory-tree">
          <h2>Memories</h2>
          {memories.data ? (
            tree.count > 0 ? (
              <MemoryFolderList folder={tree} selected={selected} onSelect={setSelected} />
            ) : (
              <p className="muted">No memories yet.</p>
            )
          ) : (
            <p aria-busy="true">Loading memories…</p>
          )}
        </nav>
        <div>
          {chosen ? (
            <MemoryDetail
              key={chosen.id}
              storeId={storeId}
              memoryId={chosen.id}
              writable={writable}
              onChanged={() => void reload()}
              onDeleted={() => (setSelected(null), void reload())}
            />
          ) : (
            <p className="empty">{tree.count > 0 ? 'Choose a memory to read it, its versions and what changed between them.' : 'This store is empty.'}</p>
          )}
          {writable ? <NewMemory storeId={storeId} onCreated={async (memory) => (await reload(), setSelected(memory.id))} /> : null}
        </div>
      </div>
    </section>
  );
}

/** A folder's folders (each open, closable) and memories, nested as the paths are. */
function MemoryFolderList({ folder, selected, onSelect }: { folder: MemoryFolder; selected: string | null; onSelect: (memoryId: string) => void }) {
  return (
    <ul className="tree" aria-label={folder.path === '/' ? 'Folders and memories' : undefined}>
      {folder.folders.map((inner) => (
        <li key={inner.path}>
          <details open>
            <summary>
              <span aria-hidden="true">📁 </span>
              {inner.name}/ <span className="muted small">({inner.count})</span>
            </summary>
            <MemoryFolderList folder={inner} selected={selected} onSelect={onSelect} />
          </details>
        </li>
      ))}
      {folder.memories.map((memory) => (
        <li key={memory.id}>
          <span aria-hidden="true">📄 </span>
          <button
            type="button"
            className="link"
            title={memory.path}
            aria-current={selected === memory.id ? 'true' : undefined}
            onClick={() => onSelect(memory.id)}
          >
            {memory.name}
          </button>{' '}
          <span className="muted small">{sizeText(memory.contentSizeBytes)}</span>
        </li>
      ))}
    </ul>
  );
}

function NewMemory({ storeId, onCreated }: { storeId: string; onCreated: (memory: PublicMemory) => Promise<unknown> }) {
  const { client } = useSigned();
  return (
    <SimpleForm
      title="New memory"
      submitLabel="Create memory"
      doneLabel="Memory created."
      fields={[
        { name: 'path', label: 'Path', required: true, hint: 'such as /customers/acme.md' },
        { name: 'content', label: 'Content', type: 'textarea' },
      ]}
      onSubmit={async (body) =>
        onCreated(
          await client.call('post', '/v1/projects/{projectId}/memory-stores/{storeId}/memories', {
            path: { storeId },
            body: body as { path: string; content: string },
          }),
        )
      }
    />
  );
}

/**
 * A memory: its content, a form to change it (on the hash of the content shown, so a change made
 * meanwhile is refused rather than overwritten), and its versions.
 */
function MemoryDetail({
  storeId,
  memoryId,
  writable,
  onChanged,
  onDeleted,
}: {
  storeId: string;
  memoryId: string;
  writable: boolean;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const { client } = useSigned();
  const memory = useResource(
    () => client.call('get', '/v1/projects/{projectId}/memory-stores/{storeId}/memories/{memoryId}', { path: { storeId, memoryId }, query: { view: 'full' } }),
    [client, storeId, memoryId],
  );
  const versions = useResource(() => loadVersions(client, storeId, memoryId), [client, storeId, memoryId]);
  const action = useRowAction(async () => {
    await Promise.all([memory.reload(), versions.reload()]);
    onChanged();
  });
  const [editing, setEditing] = useState(false);
  const data = memory.data;
  if (!data) return memory.error ? <ErrorNotice error={memory.error} /> : <p aria-busy="true">Opening the memory…</p>;
  const list = versions.data ?? [];
  const number = (index: number) => list.length - index;
  const redact = (version: PublicMemoryVersion, index: number) =>
    action.act(
      () =>
        client.call('post', '/v1/projects/{projectId}/memory-stores/{storeId}/memory-versions/{memoryVersionId}/redact', {
          path: { storeId, memoryVersionId: version.id },
        }),
      `Redact version #${number(index)} of ${data.path}? Its content and path are erased for good; its hash and size stay.`,
    );
  return (
    <section className="card" aria-label={`Memory ${data.path}`}>
      <h2>
        <code>{data.path}</code>
      </h2>
      <p className="muted small">
        {sizeText(data.contentSizeBytes)} · SHA-256 <code title={data.contentSha256}>{shortHash(data.contentSha256)}</code> · updated{' '}
        <time dateTime={data.updatedAt}>{when(data.updatedAt)}</time>
      </p>
      {editing ? (
        <EditMemory
          storeId={storeId}
          memory={data}
          onSaved={() => (setEditing(false), void action.act(async () => undefined))}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <>
          <pre className="memory-content">{data.content}</pre>
          {writable ? (
            <div className="actions-row">
              <button type="button" className="small" onClick={() => setEditing(true)}>
                Edit
              </button>
              <button
                type="button"
                className="small danger"
                disabled={action.busy}
                onClick={() =>
                  void action.act(async () => {
                    await client.call('delete', '/v1/projects/{projectId}/memory-stores/{storeId}/memories/{memoryId}', {
                      path: { storeId, memoryId },
                      query: { expectedContentSha256: data.contentSha256 },
                    });
                    onDeleted();
                  }, `Delete ${data.path}? Its versions stay (and can be redacted).`)
                }
              >
                Delete memory
              </button>
            </div>
          ) : null}
        </>
      )}

      <h3 className="spaced">Versions</h3>
      <ErrorNotice error={versions.error ?? action.error} />
      {versions.data ? (
        <table className="memory-versions" aria-label="Versions">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Operation</th>
              <th scope="col">Author</th>
              <th scope="col">Written</th>
              <th scope="col" className="number">
                Size
              </th>
              <th scope="col">SHA-256</th>
              {writable ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {list.map((version, index) => (
              <tr key={version.id}>
                <th scope="row">
                  #{number(index)}
                  {version.id === data.versionId ? (
                    <>
                      {' '}
                      <span className="badge good">current</span>
                    </>
                  ) : null}
                  {version.redactedAt ? (
                    <>
                      {' '}
                      <span className="badge bad" title={`Redacted ${when(version.redactedAt)}`}>
                        redacted
                      </span>
                    </>
                  ) : null}
                </th>
                <td>
                  {version.operation}
                  {version.path && version.path !== data.path ? <div className="muted small">at {version.path}</div> : null}
                  {version.redactedAt ? <div className="muted small">content erased</div> : null}
                </td>
                <td>
                  <Author author={version.writtenBy} />
                </td>
                <td>
                  <time dateTime={version.createdAt}>{when(version.createdAt)}</time>
                </td>
                <td className="number">{version.contentSizeBytes === null ? '—' : sizeText(version.contentSizeBytes)}</td>
                <td>
                  <code title={version.contentSha256 ?? undefined}>{shortHash(version.contentSha256)}</code>
                </td>
                {writable ? (
                  <td className="actions">
                    {version.redactedAt ? null : (
                      <button type="button" className="small danger" disabled={action.busy} onClick={() => void redact(version, index)}>
                        Redact
                      </button>
                    )}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p aria-busy="true">Loading versions…</p>
      )}
      {list.length > 1 ? <VersionCompare key={list[0]!.id} storeId={storeId} versions={list} /> : null}
    </section>
  );
}

function EditMemory({ storeId, memory, onSaved, onCancel }: { storeId: string; memory: PublicMemory; onSaved: () => void; onCancel: () => void }) {
  const { client } = useSigned();
  const [content, setContent] = useState(memory.content ?? '');
  const { busy, error, run } = useAction();
  const save = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await client.call('patch', '/v1/projects/{projectId}/memory-stores/{storeId}/memories/{memoryId}', {
        path: { storeId, memoryId: memory.id },
        body: { content, precondition: { type: 'content_sha256', contentSha256: memory.contentSha256 } },
      });
      onSaved();
    });
  };
  return (
    <form onSubmit={save} aria-label="Edit memory">
      <label>
        Content
        <textarea className="code" rows={10} value={content} onChange={(event) => setContent(event.target.value)} />
      </label>
      <ErrorNotice error={error} />
      <div className="actions-row">
        <button type="submit" disabled={busy} aria-busy={busy}>
          {busy ? 'Saving…' : 'Save a new version'}
        </button>
        <button type="button" className="link" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Author({ author }: { author: MemoryAuthor }) {
  const { context } = useSigned();
  if (author.type === 'session')
    return (
      <>
        <Link to={`/sessions/${author.sessionId}`}>session {author.sessionId.slice(0, 8)}</Link>
        <div className="muted small">
          run <code>{author.runId.slice(0, 8)}</code>
        </div>
      </>
    );
  const you = author.principalId === context.principal.id;
  return (
    <>
      {you ? 'you' : 'principal'} <code title={author.principalId}>{author.principalId.slice(0, 8)}</code>
      {author.apiKeyId ? (
        <div className="muted small">
          API key <code>{author.apiKeyId.slice(0, 8)}</code>
        </div>
      ) : null}
    </>
  );
}

/**
 * Two versions side by side, line by line (the console's own diff, `diff.ts`): by default the one
 * before the newest and the newest. A redacted version has no content to compare; a deletion
 * compares as empty.
 */
function VersionCompare({ storeId, versions }: { storeId: string; versions: PublicMemoryVersion[] }) {
  const { client } = useSigned();
  const [left, setLeft] = useState(versions[1]!.id);
  const [right, setRight] = useState(versions[0]!.id);
  const number = new Map(versions.map((version, index) => [version.id, versions.length - index]));
  // Read again when a version of the list changes (a redaction), not only when another is chosen.
  const revision = versions.map((version) => `${version.id}:${version.redactedAt ?? ''}`).join(',');
  const contents = useResource(
    () =>
      Promise.all(
        [left, right].map((memoryVersionId) =>
          client.call('get', '/v1/projects/{projectId}/memory-stores/{storeId}/memory-versions/{memoryVersionId}', {
            path: { storeId, memoryVersionId },
            query: { view: 'full' },
          }),
        ),
      ),
    [client, storeId, left, right, revision],
  );
  const [before, after] = contents.data ?? [];
  const redacted = [before, after].filter((version) => version?.redactedAt);
  const rows = useMemo(
    () => (before && after && redacted.length === 0 ? sideBySideDiff(before.content ?? '', after.content ?? '') : []),
    [before, after, redacted.length],
  );
  const changes = rows.filter((row) => row.kind !== 'same').length;
  const picker = (label: string, value: string, set: (id: string) => void) => (
    <label>
      {label}
      <select value={value} onChange={(event) => set(event.target.value)}>
        {versions.map((version) => (
          <option key={version.id} value={version.id}>
            #{number.get(version.id)} {version.operation} {when(version.createdAt)}
            {version.redactedAt ? ' (redacted)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div role="region" aria-label="Compare versions">
      <h3 className="spaced">Compare versions</h3>
      <div className="row">
        {picker('From', left, setLeft)}
        {picker('To', right, setRight)}
      </div>
      <ErrorNotice error={contents.error} />
      {!before || !after ? (
        <p aria-busy="true">Loading the versions…</p>
      ) : redacted.length > 0 ? (
        <p className="notice" role="status">
          {redacted.map((version) => `Version #${number.get(version!.id)}`).join(' and ')} {redacted.length === 1 ? 'is' : 'are'} redacted: the content is gone,
          so there is nothing to compare.
        </p>
      ) : (
        <>
          <p className="muted" aria-live="polite">
            {changes === 0 ? 'Identical content' : `${changes} changed line${changes === 1 ? '' : 's'}`}
          </p>
          <DiffTable rows={rows} />
        </>
      )}
    </div>
  );
}
