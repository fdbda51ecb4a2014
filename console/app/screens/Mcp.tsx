import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { SimpleForm } from '../components/SimpleForm.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { useResource } from '../components/useResource.ts';
import { useRowAction } from '../components/useRowAction.ts';
import { useSigned } from '../session.tsx';

/** Remote MCP servers with their discovered tools, credentials (write-only secrets), credential policies and toolsets. */
export function McpScreen() {
  const { client } = useSigned();
  const servers = useResource(() => client.call('get', '/v1/projects/{projectId}/mcp-servers', { query: { limit: '100' } }), [client]);
  const credentials = useResource(() => client.call('get', '/v1/projects/{projectId}/mcp-credentials', { query: { limit: '100' } }), [client]);
  const policies = useResource(() => client.call('get', '/v1/projects/{projectId}/mcp-credential-policies', { query: { limit: '100' } }), [client]);
  const toolsets = useResource(() => client.call('get', '/v1/projects/{projectId}/mcp-toolsets', { query: { limit: '100' } }), [client]);
  const serverList = servers.data?.data ?? [];
  const credentialList = credentials.data?.data ?? [];
  const policyList = policies.data?.data ?? [];
  const credentialAction = useRowAction(credentials.reload);
  return (
    <section>
      <h1>MCP</h1>
      <ErrorNotice error={servers.error ?? credentials.error ?? policies.error ?? toolsets.error ?? credentialAction.error} />
      <h2>Servers</h2>
      {serverList.length === 0 ? (
        <p className="empty">No MCP servers. Add one, discover its tools, then publish a toolset that agents bind.</p>
      ) : (
        serverList.map((server) => (
          <div className="card" key={server.id}>
            <h3>
              {server.displayName} <code>{server.key}</code>
            </h3>
            <p className="small">
              <code>{server.endpointUrl}</code> · {server.transport} · v{server.latestVersion}
            </p>
            <ul>
              {server.versions[0]?.tools.map((tool) => (
                <li key={tool.name}>
                  <code>{tool.name}</code> {tool.description}
                </li>
              ))}
            </ul>
            {server.versions[0]?.discoveredAt ? null : <p className="muted">Not discovered yet.</p>}
            <SimpleForm
              title={`Discover ${server.displayName}`}
              submitLabel="Discover tools"
              doneLabel="Discovered."
              fields={[
                {
                  name: 'credentialPolicyVersionId',
                  label: 'Credential policy',
                  type: 'select',
                  optional: true,
                  options: [
                    { value: '', label: 'None (the server needs no credential)' },
                    ...policyList
                      .filter((policy) => policy.active)
                      .map((policy) => ({ value: policy.id, label: `${policy.displayName} v${policy.version} (${policy.exactOrigin})` })),
                  ],
                },
              ]}
              onSubmit={async (body) => {
                await client.call('post', '/v1/projects/{projectId}/mcp-servers/{serverId}/discover', { path: { serverId: server.id }, body: body as never });
                await servers.reload();
              }}
            />
          </div>
        ))
      )}
      <SimpleForm
        title="Add an MCP server"
        submitLabel="Add server"
        fields={[
          { name: 'displayName', label: 'Name', required: true },
          { name: 'key', label: 'Key', required: true },
          { name: 'endpointUrl', label: 'Endpoint URL', required: true },
          {
            name: 'transport',
            label: 'Transport',
            type: 'select',
            options: [
              { value: 'streamable_http', label: 'Streamable HTTP' },
              { value: 'legacy_sse', label: 'Legacy SSE' },
            ],
          },
        ]}
        onSubmit={async (body) => {
          await client.call('post', '/v1/projects/{projectId}/mcp-servers', { body: body as never });
          await servers.reload();
        }}
      />
      <h2>Credentials</h2>
      {credentialList.length === 0 ? (
        <p className="empty">No credentials. A credential holds the secret an MCP server needs; policies say where it may be sent.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Fingerprint</th>
              <th scope="col">Version</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {credentialList.map((credential) => (
              <tr key={credential.id}>
                <td>
                  {credential.displayName} <code>{credential.key}</code>
                </td>
                <td>
                  {credential.kind}
                  {credential.headerName ? ` (${credential.headerName})` : ''}
                </td>
                <td>
                  <code>{credential.credentialFingerprint ?? '—'}</code>
                </td>
                <td>{credential.credentialVersion}</td>
                <td>
                  <StatusBadge status={credential.lifecycle} />
                </td>
                <td>
                  {credential.lifecycle === 'active' ? (
                    <button
                      type="button"
                      className="small danger"
                      onClick={() =>
                        void credentialAction.act(
                          () => client.call('delete', '/v1/projects/{projectId}/mcp-credentials/{credentialId}', { path: { credentialId: credential.id } }),
                          `Revoke ${credential.displayName}? Servers that need it stop working until a new credential and policy are published.`,
                        )
                      }
                    >
                      Revoke
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {credentialList.some((credential) => credential.lifecycle === 'active') ? (
        <SimpleForm
          title="Rotate a credential's secret"
          submitLabel="Rotate"
          doneLabel="Rotated: the next calls use the new secret."
          fields={[
            {
              name: 'credentialId',
              label: 'Credential',
              type: 'select',
              options: credentialList
                .filter((credential) => credential.lifecycle === 'active')
                .map((credential) => ({ value: credential.id, label: credential.displayName })),
            },
            { name: 'secret', label: 'New secret', type: 'password', required: true },
          ]}
          onSubmit={async ({ credentialId, secret }) => {
            await client.call('post', '/v1/projects/{projectId}/mcp-credentials/{credentialId}/rotate', {
              path: { credentialId: String(credentialId) },
              body: { secret: String(secret) },
            });
            await credentials.reload();
          }}
        />
      ) : null}
      <SimpleForm
        title="Add a credential"
        submitLabel="Add credential"
        fields={[
          { name: 'displayName', label: 'Name', required: true },
          { name: 'key', label: 'Key', required: true },
          {
            name: 'kind',
            label: 'Kind',
            type: 'select',
            options: [
              { value: 'static_bearer', label: 'Bearer token' },
              { value: 'api_key_header', label: 'API key header' },
            ],
          },
          { name: 'headerName', label: 'Header name', optional: true, hint: 'API key header only' },
          { name: 'secret', label: 'Secret', type: 'password', required: true },
        ]}
        onSubmit={async (body) => {
          await client.call('post', '/v1/projects/{projectId}/mcp-credentials', { body: body as never });
          await credentials.reload();
        }}
      />
      <h2>Credential policies</h2>
      <ul>
        {policyList.map((policy) => (
          <li key={policy.id}>
            {policy.displayName} <code>{policy.key}</code> v{policy.version}:{' '}
            <code>
              {policy.exactOrigin}
              {policy.pathPrefix}
            </code>{' '}
            {policy.active ? '' : '(inactive)'} <span className="muted small">id {policy.id}</span>
          </li>
        ))}
      </ul>
      {credentialList.some((credential) => credential.lifecycle === 'active') ? (
        <SimpleForm
          title="Publish a credential policy"
          submitLabel="Publish policy"
          fields={[
            { name: 'displayName', label: 'Name', required: true },
            { name: 'key', label: 'Key', required: true },
            {
              name: 'credentialId',
              label: 'Credential',
              type: 'select',
              options: credentialList
                .filter((credential) => credential.lifecycle === 'active')
                .map((credential) => ({ value: credential.id, label: credential.displayName })),
            },
            { name: 'exactOrigin', label: 'Exact origin', required: true, hint: 'https://mcp.example.com' },
            { name: 'pathPrefix', label: 'Path prefix', initial: '/' },
            { name: 'timeoutMs', label: 'Timeout (ms)', type: 'number', initial: '30000' },
            { name: 'maximumResponseBytes', label: 'Maximum response bytes', type: 'number', initial: '1048576' },
          ]}
          onSubmit={async (body) => {
            await client.call('post', '/v1/projects/{projectId}/mcp-credential-policies', { body: body as never });
            await policies.reload();
          }}
        />
      ) : null}
      <h2>Toolsets</h2>
      <ul>
        {(toolsets.data?.data ?? []).map((toolset) => (
          <li key={toolset.id}>
            <code>{toolset.key}</code> v{toolset.latestVersion}:{' '}
            {toolset.versions[0]?.tools.map((tool) => `${tool.remoteToolName}${tool.approval === 'always' ? ' (approval)' : ''}`).join(', ')}{' '}
            <span className="muted small">version id {toolset.latestVersionId}</span>
          </li>
        ))}
      </ul>
      {serverList.length > 0 ? (
        <SimpleForm
          title="Publish a toolset"
          submitLabel="Publish toolset"
          fields={[
            { name: 'displayName', label: 'Name', required: true },
            { name: 'key', label: 'Key', required: true },
            {
              name: 'serverVersionId',
              label: 'Server version',
              type: 'select',
              options: serverList.map((server) => ({ value: server.latestVersionId, label: `${server.displayName} v${server.latestVersion}` })),
            },
            { name: 'tools', label: 'Tools', type: 'json', initial: '[{"remoteToolName": "", "approval": "never"}]' },
          ]}
          onSubmit={async (body) => {
            await client.call('post', '/v1/projects/{projectId}/mcp-toolsets', { body: body as never });
            await toolsets.reload();
          }}
        />
      ) : null}
    </section>
  );
}
