import { useState, type FormEvent } from 'react';
import type { RestorePreview, RestoreResult } from '../../../client/src/index.ts';
import { apiCall } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { useSigned } from '../session.tsx';

/** Configuration backup (no secrets) and restore into new or empty projects, previewed first. */
export function BackupScreen() {
  const { context } = useSigned();
  const organizationId = context.organization.id;
  const [backup, setBackup] = useState<unknown>(null);
  const [fileName, setFileName] = useState('');
  const [preview, setPreview] = useState<RestorePreview | null>(null);
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [result, setResult] = useState<RestoreResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<'preview' | 'restore' | null>(null);

  const choose = async (file: File | undefined) => {
    setPreview(null);
    setResult(null);
    setError(null);
    if (!file) return;
    setFileName(file.name);
    try {
      const parsed = JSON.parse(await file.text());
      setBackup(parsed);
      setBusy('preview');
      setPreview(await apiCall<RestorePreview>('POST', `/organizations/${organizationId}/configuration-restore/preview`, { backup: parsed }));
    } catch (caught) {
      setError(caught instanceof SyntaxError ? new Error(`${file.name} is not a JSON backup file`) : caught);
    } finally {
      setBusy(null);
    }
  };
  const restore = async (event: FormEvent) => {
    event.preventDefault();
    setBusy('restore');
    setError(null);
    try {
      const credentials: Record<string, Record<string, unknown>> = {};
      for (const needed of preview?.requiredCredentials ?? []) {
        const value = secrets[`${needed.kind}.${needed.id}`] ?? '';
        (credentials[needed.kind] ??= {})[needed.id] = needed.value === 'accessKeyPair' ? JSON.parse(value || '{}') : value;
      }
      setResult(await apiCall<RestoreResult>('POST', `/organizations/${organizationId}/configuration-restore`, { backup, credentials }));
      // Done: the secrets typed for it leave the page with the preview.
      setSecrets({});
      setPreview(null);
      setBackup(null);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(null);
    }
  };
  return (
    <section>
      <h1>Backup &amp; restore</h1>
      <h2>Back up {context.organization.name}</h2>
      <p>
        Every project's configuration — agents and versions, presets, connections, Skills, MCP, webhooks — as one JSON file. Secrets are never in it: a restore
        asks for them.
      </p>
      <p>
        <a className="button" href={`/v1/organizations/${organizationId}/configuration-backup`} download>
          Download backup
        </a>
      </p>

      <h2>Restore</h2>
      <label>
        Backup file
        <input type="file" accept="application/json,.json" onChange={(event) => void choose(event.target.files?.[0])} />
      </label>
      {busy === 'preview' ? <p aria-busy="true">Checking {fileName}…</p> : null}
      <ErrorNotice error={error} />
      {preview ? (
        <form className="card" onSubmit={(event) => void restore(event)} aria-label="Restore preview">
          <h3>Preview of {fileName}</h3>
          <table>
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {preview.projects.map((project) => (
                <tr key={project.slug}>
                  <td>
                    {project.name} <span className="muted">{project.slug}</span>
                  </td>
                  <td>
                    {project.action.replaceAll('_', ' ')}
                    {project.reason ? ` — ${project.reason}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="small">
            {Object.entries(preview.counts)
              .filter(([, count]) => count > 0)
              .map(([resource, count]) => `${resource} ${count}`)
              .join(' · ')}
          </p>
          {preview.conflicts.map((conflict) => (
            <p key={`${conflict.resource}${conflict.id}`} className="notice error">
              {conflict.resource} {conflict.key ?? conflict.id}: {conflict.message}
            </p>
          ))}
          {preview.warnings.map((warning) => (
            <p key={`${warning.code}${warning.id}`} className="notice">
              {warning.message}
            </p>
          ))}
          {preview.requiredCredentials.map((needed) => (
            <label key={`${needed.kind}.${needed.id}`}>
              Secret for {needed.displayName}{' '}
              <span className="muted small">
                ({needed.kind}
                {needed.value === 'accessKeyPair' ? ', JSON {"accessKeyId","secretAccessKey"}' : ''})
              </span>
              <input
                type="password"
                required
                autoComplete="off"
                value={secrets[`${needed.kind}.${needed.id}`] ?? ''}
                onChange={(event) => setSecrets({ ...secrets, [`${needed.kind}.${needed.id}`]: event.target.value })}
              />
            </label>
          ))}
          <button type="submit" disabled={!preview.ready || busy !== null} aria-busy={busy === 'restore'}>
            {busy === 'restore' ? 'Restoring…' : preview.ready ? 'Restore' : 'Blocked: see the conflicts'}
          </button>
        </form>
      ) : null}
      {result ? (
        <div className="notice good" role="status">
          Restored {result.projects.map((project) => `${project.name} (${project.action.replaceAll('_', ' ')})`).join(', ')}.
        </div>
      ) : null}
    </section>
  );
}
