import { useState } from 'react';
import type { CreatedApiKey } from '../../../client/src/index.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { SimpleForm } from '../components/SimpleForm.tsx';
import { useResource } from '../components/useResource.ts';
import { useRowAction } from '../components/useRowAction.ts';
import { useSigned } from '../session.tsx';

const ROLES = ['viewer', 'member', 'admin', 'owner'].map((value) => ({ value, label: value }));

/** Members of the project and the organization's API keys (a new key's secret is shown once). */
export function AccessScreen() {
  const { client, context, provider } = useSigned();
  const members = useResource(() => client.call('get', '/v1/projects/{projectId}/members', {}), [client]);
  const keys = useResource(() => client.call('get', '/v1/projects/{projectId}/api-keys', { query: { limit: '100' } }), [client]);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const edge = provider.mode === 'edge_proxy';
  const keyAction = useRowAction(keys.reload);
  const memberAction = useRowAction(members.reload);
  return (
    <section>
      <h1>Members &amp; API keys</h1>
      <h2>Members of {context.project.name}</h2>
      <ErrorNotice error={members.error ?? memberAction.error} />
      {members.data ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Who</th>
              <th scope="col">Project role</th>
              <th scope="col">Organization role</th>
              <th scope="col">Scopes</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data.data.map((member) => {
              const who = member.displayName ?? member.email ?? member.subject;
              return (
                <tr key={member.id}>
                  <td>{who}</td>
                  <td>
                    <select
                      aria-label={`Role of ${who}`}
                      value={member.role}
                      onChange={(event) =>
                        void memberAction.act(() =>
                          client.call('patch', '/v1/projects/{projectId}/members/{memberId}', {
                            path: { memberId: member.id },
                            body: { role: event.target.value as never },
                          }),
                        )
                      }
                    >
                      {ROLES.map((role) => (
                        <option key={role.value} value={role.value}>
                          {role.label}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>{member.organizationRole ?? '—'}</td>
                  <td className="small">{member.scopes.join(' ')}</td>
                  <td>
                    {member.subject === context.principal.subject ? null : (
                      <button
                        type="button"
                        className="danger small"
                        onClick={() =>
                          void memberAction.act(
                            () => client.call('delete', '/v1/projects/{projectId}/members/{memberId}', { path: { memberId: member.id } }),
                            `Remove ${who} from the organization? Their project memberships go and their API keys are revoked.`,
                          )
                        }
                      >
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <SimpleForm
        title={edge ? 'Add a person by email' : 'Add or update a member'}
        submitLabel="Save member"
        fields={
          edge
            ? [
                { name: 'email', label: 'Email', required: true },
                { name: 'role', label: 'Role', type: 'select', options: ROLES },
              ]
            : [
                { name: 'subject', label: 'Subject', required: true, hint: 'the identity provider’s subject' },
                { name: 'role', label: 'Role', type: 'select', options: ROLES },
                { name: 'scopes', label: 'Scopes', type: 'list', optional: true, hint: 'comma-separated; empty for the role’s scopes' },
              ]
        }
        onSubmit={async (body) => {
          await client.call('post', '/v1/projects/{projectId}/members', { body: body as never });
          await members.reload();
        }}
      />

      <h2>API keys</h2>
      <p className="muted">Keys belong to the organization and act with the scopes they were given; the secret is shown once, when the key is created.</p>
      {created ? <NewSecret created={created} onDismiss={() => setCreated(null)} /> : null}
      <ErrorNotice error={keys.error ?? keyAction.error} />
      {keys.data && keys.data.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Secret</th>
              <th scope="col">Scopes</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.data.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td>
                  <code>{key.secretHint}</code>
                </td>
                <td className="small">{key.scopes.join(' ')}</td>
                <td>{key.lastUsedAt ? new Date(key.lastUsedAt).toLocaleString() : 'never'}</td>
                <td>{key.revokedAt ? 'revoked' : 'active'}</td>
                <td>
                  {key.revokedAt ? null : (
                    <button
                      type="button"
                      className="danger small"
                      onClick={() =>
                        void keyAction.act(
                          () => client.call('delete', '/v1/projects/{projectId}/api-keys/{apiKeyId}', { path: { apiKeyId: key.id } }),
                          `Revoke the key ${key.name}? Integrations using it stop working at once.`,
                        )
                      }
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="empty">
          No API keys yet. Create one for an integration or the <code>svc</code> command line.
        </p>
      )}
      <SimpleForm
        title="Create an API key"
        submitLabel="Create key"
        fields={[
          { name: 'name', label: 'Name', required: true },
          {
            name: 'scopes',
            label: 'Scopes',
            type: 'list',
            initial: 'session:write, run:create, run:read, session:read',
            hint: 'comma-separated; * for all you hold',
          },
        ]}
        onSubmit={async (body) => {
          setCreated(await client.call('post', '/v1/projects/{projectId}/api-keys', { body: body as never }));
          await keys.reload();
        }}
      />
    </section>
  );
}

function NewSecret({ created, onDismiss }: { created: CreatedApiKey; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(created.secret);
    setCopied(true);
  };
  return (
    <div className="card secret" role="alert" aria-label="New API key secret">
      <p>
        <strong>Copy the secret of “{created.name}” now.</strong> It is shown this once and cannot be read again.
      </p>
      <p>
        <code className="secret-value">{created.secret}</code>
      </p>
      <button type="button" onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy secret'}
      </button>
      <button type="button" className="link" onClick={onDismiss}>
        I have stored it
      </button>
    </div>
  );
}
