import { DEFAULT_PREVIOUS_CREDENTIAL_TTL_SECONDS } from '../../../domain/webhooks/limits.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { SimpleForm } from '../components/SimpleForm.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { useResource } from '../components/useResource.ts';
import { useRowAction } from '../components/useRowAction.ts';
import { useSigned } from '../session.tsx';

/** Event webhooks with their delivery status and last error. The signing secret is write-only. */
export function WebhooksScreen() {
  const { client } = useSigned();
  const webhooks = useResource(() => client.call('get', '/v1/projects/{projectId}/event-webhooks', {}), [client]);
  const action = useRowAction(webhooks.reload);
  const toggle = (webhookId: string, enabled: boolean) =>
    action.act(() => client.call('patch', '/v1/projects/{projectId}/event-webhooks/{webhookId}', { path: { webhookId }, body: { enabled } }));
  const data = webhooks.data;
  return (
    <section>
      <h1>Webhooks</h1>
      <ErrorNotice error={webhooks.error ?? action.error} />
      <h2>Endpoints</h2>
      {data && !data.credentialEncryptionConfigured ? (
        <p className="notice error">This server has no credential encryption key, so it cannot store signing secrets: webhooks cannot be created.</p>
      ) : null}
      {data && data.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Webhook</th>
              <th scope="col">Status</th>
              <th scope="col">Pending</th>
              <th scope="col">Last success</th>
              <th scope="col">Last error</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.data.map((webhook) => (
              <tr key={webhook.id}>
                <td>
                  {webhook.displayName}
                  <br />
                  <code className="small">{webhook.endpointUrl}</code>
                </td>
                <td>
                  <StatusBadge status={webhook.status} />
                  {webhook.consecutiveFailures ? (
                    <span className="small">
                      {' '}
                      {webhook.consecutiveFailures} {webhook.consecutiveFailures === 1 ? 'failure' : 'failures'}
                    </span>
                  ) : null}
                </td>
                <td>{webhook.pendingEvents}</td>
                <td>{webhook.lastSuccessAt ? new Date(webhook.lastSuccessAt).toLocaleString() : '—'}</td>
                <td>
                  {webhook.lastErrorCode ? `${webhook.lastErrorCode}${webhook.lastResponseStatus ? ` (HTTP ${webhook.lastResponseStatus})` : ''}` : '—'}
                  {webhook.nextAttemptAt ? <div className="small muted">retry {new Date(webhook.nextAttemptAt).toLocaleTimeString()}</div> : null}
                </td>
                <td className="actions">
                  <button type="button" className="small" onClick={() => void toggle(webhook.id, !webhook.enabled)}>
                    {webhook.enabled ? 'Disable' : 'Enable'}
                  </button>
                  <button
                    type="button"
                    className="small danger"
                    onClick={() =>
                      void action.act(
                        () => client.call('delete', '/v1/projects/{projectId}/event-webhooks/{webhookId}', { path: { webhookId: webhook.id } }),
                        `Delete ${webhook.displayName}? Undelivered events are not sent to it.`,
                      )
                    }
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="empty">No webhooks. A webhook receives the project's events in signed batches (Standard Webhooks), in order, at least once.</p>
      )}
      {data && data.data.length > 0 ? (
        <SimpleForm
          title="Rotate a signing secret"
          submitLabel="Rotate secret"
          doneLabel="Rotated: deliveries are signed with the new secret (and the old one for the overlap)."
          fields={[
            { name: 'webhookId', label: 'Webhook', type: 'select', options: data.data.map((webhook) => ({ value: webhook.id, label: webhook.displayName })) },
            { name: 'signingSecret', label: 'New signing secret', type: 'password', required: true, hint: 'whsec_… (base64)' },
            {
              name: 'previousCredentialTtlSeconds',
              label: 'Keep signing with the old secret for (seconds)',
              type: 'number',
              initial: String(DEFAULT_PREVIOUS_CREDENTIAL_TTL_SECONDS),
            },
          ]}
          onSubmit={async ({ webhookId, ...body }) => {
            await client.call('put', '/v1/projects/{projectId}/event-webhooks/{webhookId}/credential', {
              path: { webhookId: String(webhookId) },
              body: body as never,
            });
            await webhooks.reload();
          }}
        />
      ) : null}
      <SimpleForm
        title="Add a webhook"
        submitLabel="Add webhook"
        fields={[
          { name: 'displayName', label: 'Name', required: true },
          { name: 'endpointUrl', label: 'Endpoint URL', required: true, hint: 'https://…' },
          { name: 'signingSecret', label: 'Signing secret', type: 'password', required: true, hint: 'whsec_… (base64)' },
          { name: 'eventKinds', label: 'Event kinds', type: 'list', optional: true, hint: 'comma-separated; empty for all' },
          { name: 'includeMessageContent', label: 'Include message content', type: 'checkbox' },
        ]}
        onSubmit={async (body) => {
          await client.call('post', '/v1/projects/{projectId}/event-webhooks', { body: body as never });
          await webhooks.reload();
        }}
      />
    </section>
  );
}
