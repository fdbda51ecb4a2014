import { useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { SimpleForm } from '../components/SimpleForm.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { useResource } from '../components/useResource.ts';
import { useSigned } from '../session.tsx';

/** Event webhooks with their delivery status and last error. The signing secret is write-only. */
export function WebhooksScreen() {
  const { client } = useSigned();
  const webhooks = useResource(() => client.call('get', '/v1/projects/{projectId}/event-webhooks', {}), [client]);
  const [error, setError] = useState<unknown>(null);
  const toggle = async (webhookId: string, enabled: boolean) => {
    setError(null);
    try {
      await client.call('patch', '/v1/projects/{projectId}/event-webhooks/{webhookId}', { path: { webhookId }, body: { enabled } });
      await webhooks.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  const data = webhooks.data;
  return (
    <section>
      <h1>Webhooks</h1>
      <ErrorNotice error={webhooks.error ?? error} />
      <h2>Endpoints</h2>
      {data && !data.credentialEncryptionConfigured ? <p className="notice error">This server has no credential encryption key, so it cannot store signing secrets: webhooks cannot be created.</p> : null}
      {data && data.data.length > 0 ? (
        <table>
          <thead><tr><th scope="col">Webhook</th><th scope="col">Status</th><th scope="col">Pending</th><th scope="col">Last success</th><th scope="col">Last error</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {data.data.map((webhook) => (
              <tr key={webhook.id}>
                <td>{webhook.displayName}<br /><code className="small">{webhook.endpointUrl}</code></td>
                <td><StatusBadge status={webhook.status} />{webhook.consecutiveFailures ? <span className="small"> {webhook.consecutiveFailures} {webhook.consecutiveFailures === 1 ? 'failure' : 'failures'}</span> : null}</td>
                <td>{webhook.pendingEvents}</td>
                <td>{webhook.lastSuccessAt ? new Date(webhook.lastSuccessAt).toLocaleString() : '—'}</td>
                <td>{webhook.lastErrorCode ? `${webhook.lastErrorCode}${webhook.lastResponseStatus ? ` (HTTP ${webhook.lastResponseStatus})` : ''}` : '—'}{webhook.nextAttemptAt ? <div className="small muted">retry {new Date(webhook.nextAttemptAt).toLocaleTimeString()}</div> : null}</td>
                <td><button type="button" className="small" onClick={() => void toggle(webhook.id, !webhook.enabled)}>{webhook.enabled ? 'Disable' : 'Enable'}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="empty">No webhooks. A webhook receives the project's events in signed batches (Standard Webhooks), in order, at least once.</p>
      )}
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
