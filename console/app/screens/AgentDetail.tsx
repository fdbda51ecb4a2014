import { useMemo, useState, type FormEvent } from 'react';
import type { PublicAgentVersion } from '../../../client/src/index.ts';
import { ConfigFields, useConfigEditor } from '../components/ConfigEditor.tsx';
import { DiffTable } from '../components/DiffTable.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { presetKeys } from '../components/presets.ts';
import { useAction } from '../components/useAction.ts';
import { useResource } from '../components/useResource.ts';
import { sideBySideDiff, stableJson } from '../diff.ts';
import { Link, navigate } from '../router.tsx';
import { useSigned } from '../session.tsx';

/** One agent: its versions, a side-by-side diff of any two, a new version, archiving. */
export function AgentDetailScreen({ agentId }: { agentId: string }) {
  const { client } = useSigned();
  const agent = useResource(() => client.call('get', '/v1/projects/{projectId}/agents/{agentId}', { path: { agentId } }), [client, agentId]);
  const presets = useResource(() => presetKeys(client), [client]);
  const [publishing, setPublishing] = useState(false);
  const [archiveError, setArchiveError] = useState<unknown>(null);
  if (!agent.data) return agent.error ? <ErrorNotice error={agent.error} /> : <p aria-busy="true">Loading the agent…</p>;
  const { data } = agent;
  const versions = [...data.versions].sort((a, b) => b.version - a.version);
  const archive = async () => {
    if (!window.confirm(`Archive ${data.name}? Its sessions stay; no new session can start.`)) return;
    try {
      await client.call('delete', '/v1/projects/{projectId}/agents/{agentId}', { path: { agentId } });
      navigate('/agents');
    } catch (error) {
      setArchiveError(error);
    }
  };
  return (
    <section>
      <p className="crumbs">
        <Link to="/agents">Agents</Link> /
      </p>
      <div className="heading">
        <h1>{data.name}</h1>
        <div className="actions">
          <Link className="button" to={`/sessions?agent=${data.id}`}>
            Start a session
          </Link>
          <button type="button" onClick={() => setPublishing(!publishing)} aria-expanded={publishing}>
            {publishing ? 'Close editor' : 'Publish a new version'}
          </button>
          <button type="button" className="danger" onClick={() => void archive()}>
            Archive
          </button>
        </div>
      </div>
      <ErrorNotice error={archiveError} />
      <dl className="facts">
        <dt>Key</dt>
        <dd>
          <code>{data.key}</code>
        </dd>
        <dt>Latest version</dt>
        <dd>
          v{data.version} · {data.model}
        </dd>
        <dt>Description</dt>
        <dd>{data.description || <span className="muted">none</span>}</dd>
        <dt>Id</dt>
        <dd>
          <code>{data.id}</code>
        </dd>
      </dl>
      {publishing ? (
        <PublishVersion agentId={agentId} latest={versions[0]!} presets={presets.data ?? []} onPublished={() => (setPublishing(false), void agent.reload())} />
      ) : null}
      <h2>Versions</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Preset</th>
            <th scope="col">Content hash</th>
            <th scope="col">Published</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((version) => (
            <tr key={version.id}>
              <td>v{version.version}</td>
              <td>{String(version.config.modelPreset ?? '')}</td>
              <td>
                <code title={version.contentHash}>{version.contentHash.slice(0, 12)}</code>
              </td>
              <td>{new Date(version.createdAt).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {versions.length > 1 ? <VersionDiff versions={versions} /> : <p className="muted">Publish a second version to compare versions side by side.</p>}
    </section>
  );
}

function PublishVersion({
  agentId,
  latest,
  presets,
  onPublished,
}: {
  agentId: string;
  latest: PublicAgentVersion;
  presets: string[];
  onPublished: () => void;
}) {
  const { client } = useSigned();
  const editor = useConfigEditor(latest.config, 'config');
  const { busy, error, run } = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const config = editor.check();
    if (config)
      void run(
        async () => (await client.call('post', '/v1/projects/{projectId}/agents/{agentId}/versions', { path: { agentId }, body: { config } }), onPublished()),
      );
  };
  return (
    <form className="card" onSubmit={submit} aria-label="New version">
      <h2>New version (from v{latest.version})</h2>
      <ConfigFields editor={editor} presets={presets} root="config" />
      <ErrorNotice error={error} />
      <button type="submit" disabled={busy} aria-busy={busy}>
        {busy ? 'Publishing…' : `Publish v${latest.version + 1}`}
      </button>
    </form>
  );
}

function VersionDiff({ versions }: { versions: PublicAgentVersion[] }) {
  const [left, setLeft] = useState(versions[1]!.id);
  const [right, setRight] = useState(versions[0]!.id);
  const byId = new Map(versions.map((version) => [version.id, version]));
  const rows = useMemo(() => sideBySideDiff(stableJson(byId.get(left)?.config ?? {}), stableJson(byId.get(right)?.config ?? {})), [left, right]);
  const changes = rows.filter((row) => row.kind !== 'same').length;
  const picker = (label: string, value: string, set: (id: string) => void) => (
    <label>
      {label}
      <select value={value} onChange={(event) => set(event.target.value)}>
        {versions.map((version) => (
          <option key={version.id} value={version.id}>
            v{version.version}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div>
      <h2>Compare versions</h2>
      <div className="row">
        {picker('From', left, setLeft)}
        {picker('To', right, setRight)}
        <p className="muted" aria-live="polite">
          {changes === 0 ? 'Identical configs' : `${changes} changed line${changes === 1 ? '' : 's'}`}
        </p>
      </div>
      <DiffTable rows={rows} />
    </div>
  );
}
