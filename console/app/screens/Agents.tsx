import { useState, type FormEvent } from 'react';
import { ConfigFields, DEFAULT_CONFIG, useConfigEditor } from '../components/ConfigEditor.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { FilteredTable } from '../components/Pager.tsx';
import { presetKeys } from '../components/presets.ts';
import { useAction } from '../components/useAction.ts';
import { useResource } from '../components/useResource.ts';
import { Link, navigate } from '../router.tsx';
import { useSigned } from '../session.tsx';

/** Agents: the newest 100 (spec 3 "Console fetch"), filtered here, ten a page; and a new agent. */
export function AgentsScreen() {
  const { client } = useSigned();
  const agents = useResource(() => client.call('get', '/v1/projects/{projectId}/agents', { query: { limit: '100' } }), [client]);
  const presets = useResource(() => presetKeys(client), [client]);
  const [creating, setCreating] = useState(false);
  return (
    <section>
      <div className="heading">
        <h1>Agents</h1>
        <button type="button" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          {creating ? 'Close' : 'New agent'}
        </button>
      </div>
      {creating ? <NewAgent presets={presets.data ?? []} /> : null}
      <ErrorNotice error={agents.error} />
      {agents.data ? (
        <FilteredTable
          label="agents"
          items={agents.data.data}
          filterText={(agent) => `${agent.name} ${agent.key} ${agent.id} ${agent.model}`}
          columns={['Name', 'Key', 'Version', 'Model', 'Updated']}
          empty={
            <p>
              No agents yet. Create one with <strong>New agent</strong>: it needs a model preset (see Models &amp; connections).
            </p>
          }
          row={(agent) => (
            <tr key={agent.id}>
              <td>
                <Link to={`/agents/${agent.id}`}>{agent.name}</Link>
              </td>
              <td>
                <code>{agent.key}</code>
              </td>
              <td>v{agent.version}</td>
              <td>{agent.model}</td>
              <td>{new Date(agent.updatedAt).toLocaleString()}</td>
            </tr>
          )}
        />
      ) : agents.loading ? (
        <p aria-busy="true">Loading agents…</p>
      ) : null}
    </section>
  );
}

function NewAgent({ presets }: { presets: string[] }) {
  const { client } = useSigned();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const editor = useConfigEditor({ ...DEFAULT_CONFIG, modelPreset: presets[0] ?? '' }, 'initialConfig');
  const { busy, error, run } = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const config = editor.check();
    if (config)
      void run(async () =>
        navigate(`/agents/${(await client.call('post', '/v1/projects/{projectId}/agents', { body: { name, description, initialConfig: config } })).id}`),
      );
  };
  return (
    <form className="card" onSubmit={submit} aria-label="New agent">
      <h2>New agent</h2>
      <label>
        Name
        <input name="name" required value={name} onChange={(event) => setName(event.target.value)} />
      </label>
      <label>
        Description
        <input name="description" value={description} onChange={(event) => setDescription(event.target.value)} />
      </label>
      <ConfigFields editor={editor} presets={presets} root="initialConfig" />
      <ErrorNotice error={error} />
      <button type="submit" disabled={busy} aria-busy={busy}>
        {busy ? 'Creating…' : 'Create agent'}
      </button>
    </form>
  );
}
