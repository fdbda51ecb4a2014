import { useState } from 'react';
import type { ModelPrices } from '../../../client/src/index.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { SimpleForm } from '../components/SimpleForm.tsx';
import { useResource } from '../components/useResource.ts';
import { useRowAction } from '../components/useRowAction.ts';
import { useSigned } from '../session.tsx';

/** A preset's prices per million tokens (in the installation's currency), or that its calls cost nothing. */
function pricesText(prices: ModelPrices | null): string {
  if (!prices) return 'unpriced';
  const cache =
    prices.cacheRead !== null || prices.cacheWrite !== null ? ` · cache ${prices.cacheRead ?? prices.input} / ${prices.cacheWrite ?? prices.input}` : '';
  return `in ${prices.input} · out ${prices.output}${cache} (${prices.source})`;
}

const PROVIDER_TYPES = ['vendor_a', 'vendor_b', 'vendor_c', 'gateway'].map((value) => ({ value, label: value }));

/** Model providers and their catalogs, presets, and sandbox and storage connections. Secrets are write-only: only fingerprints show. */
export function ConnectionsScreen() {
  const { client } = useSigned();
  const providers = useResource(() => client.call('get', '/v1/projects/{projectId}/model-providers', { query: { limit: '100' } }), [client]);
  const presets = useResource(() => client.call('get', '/v1/projects/{projectId}/model-presets', { query: { limit: '100' } }), [client]);
  const sandboxes = useResource(() => client.call('get', '/v1/projects/{projectId}/sandbox-providers', { query: { limit: '100' } }), [client]);
  const storage = useResource(() => client.call('get', '/v1/projects/{projectId}/storage-providers', { query: { limit: '100' } }), [client]);
  const liveProviders = providers.data?.data ?? [];
  // Prices are set on the project's own presets; a deployment preset's come from its file.
  const projectPresets = (presets.data?.data ?? []).filter((preset) => preset.origin === 'project');
  const storageList = storage.data?.data ?? [];
  const providerAction = useRowAction(providers.reload);
  const presetAction = useRowAction(presets.reload);
  const storageAction = useRowAction(storage.reload);
  return (
    <section>
      <h1>Models &amp; connections</h1>

      <h2>Model providers</h2>
      <ErrorNotice error={providers.error ?? providerAction.error} />
      {liveProviders.length === 0 ? (
        <p className="empty">No model provider yet: add one with its API key, then create a preset that agents name.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Type</th>
              <th scope="col">Key fingerprint</th>
              <th scope="col">Credential version</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {liveProviders.map((provider) => (
              <tr key={provider.id}>
                <td>{provider.displayName}</td>
                <td>
                  <code>{provider.key}</code>
                </td>
                <td>{provider.providerType}</td>
                <td>
                  <code>{provider.credentialFingerprint ?? 'none'}</code>
                </td>
                <td>{provider.credentialVersion}</td>
                <td>
                  <button
                    type="button"
                    className="danger small"
                    onClick={() =>
                      void providerAction.act(
                        () => client.call('delete', '/v1/projects/{projectId}/model-providers/{providerId}', { path: { providerId: provider.id } }),
                        `Remove ${provider.displayName}? Its key is wiped. (Refused while a live preset routes through it: archive those first.)`,
                      )
                    }
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {liveProviders.length > 0 ? (
        <SimpleForm
          title="Replace a provider's API key"
          submitLabel="Replace key"
          doneLabel="Replaced: the next model calls use the new key."
          fields={[
            {
              name: 'providerId',
              label: 'Provider',
              type: 'select',
              options: liveProviders.map((provider) => ({ value: provider.id, label: provider.displayName })),
            },
            { name: 'apiKey', label: 'New API key', type: 'password', required: true },
          ]}
          onSubmit={async ({ providerId, apiKey }) => {
            await client.call('put', '/v1/projects/{projectId}/model-providers/{providerId}/credential', {
              path: { providerId: String(providerId) },
              body: { apiKey: String(apiKey) },
            });
            await providers.reload();
          }}
        />
      ) : null}
      <SimpleForm
        title="Add a model provider"
        submitLabel="Add provider"
        fields={[
          { name: 'displayName', label: 'Name', required: true },
          { name: 'key', label: 'Key', required: true, hint: 'lowercase, e.g. openai' },
          { name: 'providerType', label: 'Type', type: 'select', options: PROVIDER_TYPES },
          { name: 'apiKey', label: 'API key', type: 'password', required: true, hint: 'stored encrypted, never shown again' },
        ]}
        onSubmit={async (body) => {
          await client.call('post', '/v1/projects/{projectId}/model-providers', { body: body as never });
          await providers.reload();
        }}
      />
      {liveProviders.length > 0 ? <Catalog providers={liveProviders.map((provider) => ({ id: provider.id, label: provider.displayName }))} /> : null}

      <h2>Model presets</h2>
      <ErrorNotice error={presets.error ?? presetAction.error} />
      {(presets.data?.data ?? []).length === 0 ? (
        <p className="empty">No presets yet. A preset pins a provider and a model; agents choose a preset by key.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Model</th>
              <th scope="col">Origin</th>
              <th scope="col">Available</th>
              <th scope="col">Prices per million tokens</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {presets.data!.data.map((preset) => (
              <tr key={preset.id}>
                <td>{preset.displayName}</td>
                <td>
                  <code>{preset.key}</code>
                </td>
                <td>{preset.model}</td>
                <td>{preset.origin}</td>
                <td>{preset.available ? 'yes' : 'no'}</td>
                <td>{pricesText(preset.prices)}</td>
                <td>
                  {preset.origin === 'project' ? (
                    <button
                      type="button"
                      className="danger small"
                      onClick={() =>
                        void presetAction.act(
                          () => client.call('delete', '/v1/projects/{projectId}/model-presets/{presetId}', { path: { presetId: preset.id } }),
                          `Archive the preset ${preset.key}? New agent versions cannot name it; published versions keep resolving it.`,
                        )
                      }
                    >
                      Archive
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {projectPresets.length > 0 ? (
        <SimpleForm
          title="Set a preset's prices"
          submitLabel="Set prices"
          doneLabel="Set: later model calls cost at these prices."
          fields={[
            {
              name: 'presetId',
              label: 'Preset',
              type: 'select',
              options: projectPresets.map((preset) => ({ value: preset.id, label: `${preset.displayName} (${preset.key})` })),
            },
            { name: 'input', label: 'Input', type: 'number', required: true, hint: 'per million tokens' },
            { name: 'output', label: 'Output', type: 'number', required: true, hint: 'per million tokens' },
            { name: 'cacheRead', label: 'Cache read', type: 'number', optional: true, hint: 'empty: billed as input' },
            { name: 'cacheWrite', label: 'Cache write', type: 'number', optional: true, hint: 'empty: billed as input' },
          ]}
          onSubmit={async ({ presetId, ...prices }) => {
            await client.call('patch', '/v1/projects/{projectId}/model-presets/{presetId}', {
              path: { presetId: String(presetId) },
              body: { prices: prices as never },
            });
            await presets.reload();
          }}
        />
      ) : null}
      {liveProviders.length > 0 ? (
        <SimpleForm
          title="Create a preset"
          submitLabel="Create preset"
          fields={[
            { name: 'displayName', label: 'Name', required: true },
            { name: 'key', label: 'Key', required: true, hint: 'what agents name, e.g. fast' },
            {
              name: 'providerId',
              label: 'Provider',
              type: 'select',
              options: liveProviders.map((provider) => ({ value: provider.id, label: provider.displayName })),
            },
            { name: 'model', label: 'Model', required: true, hint: '<providerType>/<model id>, from the catalog' },
          ]}
          onSubmit={async (body) => {
            await client.call('post', '/v1/projects/{projectId}/model-presets', { body: { ...body, routing: {} } as never });
            await presets.reload();
          }}
        />
      ) : null}

      <h2>Sandbox connections</h2>
      <ErrorNotice error={sandboxes.error} />
      {(sandboxes.data?.data ?? []).length === 0 ? (
        <p className="empty">No sandbox connection: agents with a sandbox (files, shell, browser) need one.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Target</th>
              <th scope="col">Allowed domains</th>
            </tr>
          </thead>
          <tbody>
            {sandboxes.data!.data.map((provider) => (
              <tr key={provider.id}>
                <td>{provider.displayName}</td>
                <td>
                  <code>{provider.key}</code>
                </td>
                <td>{provider.target ?? 'local'}</td>
                <td>{provider.restrictedEgress.allowedDomains.join(', ') || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <SimpleForm
        title="Add a sandbox connection"
        submitLabel="Add connection"
        fields={[
          { name: 'displayName', label: 'Name', required: true },
          { name: 'key', label: 'Key', required: true },
          { name: 'apiKey', label: 'API key', type: 'password', required: true },
        ]}
        onSubmit={async (body) => {
          await client.call('post', '/v1/projects/{projectId}/sandbox-providers', { body: { ...body, providerType: 'sandbox_vendor' } as never });
          await sandboxes.reload();
        }}
      />

      <h2>Object storage</h2>
      <ErrorNotice error={storage.error ?? storageAction.error} />
      {storageList.length === 0 ? (
        <p className="empty">No storage connection: sandboxed sessions keep their workspace backups in the default one.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Bucket</th>
              <th scope="col">Region</th>
              <th scope="col">Default</th>
              <th scope="col">Key fingerprint</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {storageList.map((provider) => (
              <tr key={provider.id}>
                <td>{provider.displayName}</td>
                <td>
                  {provider.bucket}
                  {provider.prefix ? `/${provider.prefix}` : ''}
                </td>
                <td>{provider.region}</td>
                <td>{provider.isDefault ? 'yes' : 'no'}</td>
                <td>
                  <code>{provider.credentialFingerprint ?? 'none'}</code>
                </td>
                <td>
                  {provider.isDefault ? null : (
                    <button
                      type="button"
                      className="small"
                      onClick={() =>
                        void storageAction.act(() =>
                          client.call('put', '/v1/projects/{projectId}/storage-providers/{providerId}/default', { path: { providerId: provider.id } }),
                        )
                      }
                    >
                      Make default
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {storageList.length > 0 ? (
        <SimpleForm
          title="Replace storage keys"
          submitLabel="Replace keys"
          doneLabel="Replaced: the next transfers use the new keys."
          fields={[
            {
              name: 'providerId',
              label: 'Connection',
              type: 'select',
              options: storageList.map((provider) => ({ value: provider.id, label: provider.displayName })),
            },
            { name: 'accessKeyId', label: 'Access key id', required: true },
            { name: 'secretAccessKey', label: 'Secret access key', type: 'password', required: true },
          ]}
          onSubmit={async ({ providerId, accessKeyId, secretAccessKey }) => {
            await client.call('put', '/v1/projects/{projectId}/storage-providers/{providerId}/credential', {
              path: { providerId: String(providerId) },
              body: { accessKeyId: String(accessKeyId), secretAccessKey: String(secretAccessKey) },
            });
            await storage.reload();
          }}
        />
      ) : null}
      <SimpleForm
        title="Add an S3 connection"
        submitLabel="Add storage"
        fields={[
          { name: 'displayName', label: 'Name', required: true },
          { name: 'key', label: 'Key', required: true },
          { name: 'endpoint', label: 'Endpoint', optional: true, hint: 'empty for AWS' },
          { name: 'region', label: 'Region', required: true, initial: 'us-east-1' },
          { name: 'bucket', label: 'Bucket', required: true },
          { name: 'forcePathStyle', label: 'Path-style addressing', type: 'checkbox' },
          { name: 'setDefault', label: 'Make it the default', type: 'checkbox', initial: true },
          { name: 'accessKeyId', label: 'Access key id', required: true },
          { name: 'secretAccessKey', label: 'Secret access key', type: 'password', required: true },
        ]}
        onSubmit={async (body) => {
          await client.call('post', '/v1/projects/{projectId}/storage-providers', { body: { ...body, providerType: 's3' } as never });
          await storage.reload();
        }}
      />
    </section>
  );
}

function Catalog({ providers }: { providers: Array<{ id: string; label: string }> }) {
  const { client } = useSigned();
  const [providerId, setProviderId] = useState(providers[0]!.id);
  const [shown, setShown] = useState(false);
  const catalog = useResource(
    () => (shown ? client.call('get', '/v1/projects/{projectId}/model-catalog', { query: { providerId } }) : Promise.resolve(null)),
    [client, providerId, shown],
  );
  return (
    <details className="card" onToggle={(event) => setShown((event.target as HTMLDetailsElement).open)}>
      <summary>Model catalog</summary>
      <label>
        Provider
        <select value={providerId} onChange={(event) => setProviderId(event.target.value)}>
          {providers.map((provider) => (
            <option key={provider.id} value={provider.id}>
              {provider.label}
            </option>
          ))}
        </select>
      </label>
      <ErrorNotice error={catalog.error} />
      {catalog.loading && shown ? <p aria-busy="true">Asking the vendor…</p> : null}
      {catalog.data ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Name</th>
              <th scope="col">Context</th>
              <th scope="col">Output</th>
              <th scope="col">Runs here</th>
            </tr>
          </thead>
          <tbody>
            {catalog.data.data.map((entry) => (
              <tr key={entry.model}>
                <td>
                  <code>{entry.model}</code>
                </td>
                <td>{entry.displayName}</td>
                <td>{entry.contextWindow?.toLocaleString('en') ?? '—'}</td>
                <td>{entry.outputLimit?.toLocaleString('en') ?? '—'}</td>
                <td>{entry.runtimeSupported ? 'yes' : 'no'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </details>
  );
}
