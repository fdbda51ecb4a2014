import { useState } from 'react';
import type { PublicSkillDraft } from '../../../client/src/index.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Markdown } from '../components/Markdown.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { useAction } from '../components/useAction.ts';
import { useResource } from '../components/useResource.ts';
import { useRowAction } from '../components/useRowAction.ts';
import { useSigned } from '../session.tsx';

/** Skills with their versions and lifecycle, and drafts edited as a package of folders and Markdown files. */
export function SkillsScreen() {
  const { client } = useSigned();
  const skills = useResource(() => client.call('get', '/v1/projects/{projectId}/skills', { query: { limit: '100' } }), [client]);
  const drafts = useResource(() => client.call('get', '/v1/projects/{projectId}/skill-drafts', { query: { limit: '100' } }), [client]);
  const [open, setOpen] = useState<string | null>(null);
  const [versionsOf, setVersionsOf] = useState<string | null>(null);
  const { error, act } = useRowAction(() => Promise.all([skills.reload(), drafts.reload()]));
  return (
    <section>
      <h1>Skills</h1>
      <ErrorNotice error={skills.error ?? drafts.error ?? error} />
      <h2>Published</h2>
      {skills.data && skills.data.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Skill</th>
              <th scope="col">Latest version</th>
              <th scope="col">Status</th>
              <th scope="col">Enabled</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {skills.data.data.map((skill) => (
              <tr key={skill.id}>
                <td>
                  {skill.displayName} <code>{skill.key}</code>
                </td>
                <td>{skill.latestVersion ? `v${skill.latestVersion.version} ${skill.latestVersion.name}` : '—'}</td>
                <td>{skill.latestVersion ? <StatusBadge status={skill.latestVersion.status} /> : null}</td>
                <td>{skill.enabled ? 'yes' : 'no'}</td>
                <td className="actions">
                  <button
                    type="button"
                    className="small"
                    onClick={() =>
                      void act(() =>
                        client.call('patch', '/v1/projects/{projectId}/skills/{skillId}', { path: { skillId: skill.id }, body: { enabled: !skill.enabled } }),
                      )
                    }
                  >
                    {skill.enabled ? 'Disable' : 'Enable'}
                  </button>
                  <button
                    type="button"
                    className="small"
                    aria-expanded={versionsOf === skill.id}
                    onClick={() => setVersionsOf(versionsOf === skill.id ? null : skill.id)}
                  >
                    Versions
                  </button>
                  <button
                    type="button"
                    className="small danger"
                    onClick={() =>
                      void act(async () => {
                        await client.call('delete', '/v1/projects/{projectId}/skills/{skillId}', { path: { skillId: skill.id } });
                        if (versionsOf === skill.id) setVersionsOf(null);
                      }, `Delete the Skill ${skill.displayName}? Agents that name it can no longer load it.`)
                    }
                  >
                    Delete
                  </button>
                  {skill.latestVersion ? (
                    <button
                      type="button"
                      className="small"
                      onClick={() =>
                        void act(async () =>
                          setOpen(
                            (
                              await client.call('post', '/v1/projects/{projectId}/skill-drafts', {
                                body: { skillId: skill.id, sourceSkillVersionId: skill.latestVersion!.id },
                              })
                            ).id,
                          ),
                        )
                      }
                    >
                      Edit as draft
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {versionsOf ? <SkillVersions key={versionsOf} skillId={versionsOf} onChange={() => void act(async () => undefined)} /> : null}
      {skills.data && skills.data.data.length > 0 ? null : (
        <p className="empty">No Skills yet. Start a blank draft, write its SKILL instructions and files, then publish it.</p>
      )}
      <h2>Drafts</h2>
      <button
        type="button"
        onClick={() => void act(async () => setOpen((await client.call('post', '/v1/projects/{projectId}/skill-drafts', { body: {} })).id))}
      >
        New blank draft
      </button>
      <ul className="drafts">
        {(drafts.data?.data ?? []).map((draft) => (
          <li key={draft.id}>
            <button type="button" className="link" onClick={() => setOpen(draft.id)} aria-expanded={open === draft.id}>
              {draft.name ?? 'untitled draft'}
            </button>{' '}
            <span className="muted small">
              {draft.skillId ? 'new version of a Skill' : 'new Skill'} · saved {new Date(draft.updatedAt).toLocaleString()}
            </span>
          </li>
        ))}
      </ul>
      {open ? <DraftEditor key={open} draftId={open} onDone={() => (setOpen(null), void act(async () => undefined))} /> : null}
    </section>
  );
}

/**
 * Every version of one Skill with its lifecycle (spec 1): an active version may be deprecated
 * (still resolvable, flagged) or revoked; a deprecated one revoked. Revoking is final, so it asks first.
 */
function SkillVersions({ skillId, onChange }: { skillId: string; onChange: () => void }) {
  const { client } = useSigned();
  const skill = useResource(() => client.call('get', '/v1/projects/{projectId}/skills/{skillId}', { path: { skillId } }), [client, skillId]);
  const action = useRowAction(async () => {
    await skill.reload();
    onChange();
  });
  const move = (versionId: string, status: 'deprecated' | 'revoked') =>
    action.act(
      () =>
        client.call('patch', '/v1/projects/{projectId}/skills/{skillId}/versions/{versionId}/lifecycle', { path: { skillId, versionId }, body: { status } }),
      status === 'revoked' ? 'Revoke this version? Runs can no longer load it, and it cannot be undone.' : undefined,
    );
  if (!skill.data) return skill.error ? <ErrorNotice error={skill.error} /> : <p aria-busy="true">Loading versions…</p>;
  return (
    <section className="card" aria-label={`Versions of ${skill.data.displayName}`}>
      <h3>Versions of {skill.data.displayName}</h3>
      <ErrorNotice error={action.error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Files</th>
            <th scope="col">Published</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {skill.data.versions.map((version) => (
            <tr key={version.id}>
              <td>
                v{version.version} {version.name}
              </td>
              <td>{version.files.length}</td>
              <td>{new Date(version.createdAt).toLocaleString()}</td>
              <td>
                <StatusBadge status={version.status} />
              </td>
              <td className="actions">
                {version.status === 'active' ? (
                  <button type="button" className="small" onClick={() => void move(version.id, 'deprecated')}>
                    Deprecate
                  </button>
                ) : null}
                {version.status !== 'revoked' ? (
                  <>
                    <button type="button" className="small danger" onClick={() => void move(version.id, 'revoked')}>
                      Revoke
                    </button>
                    <a
                      className="small"
                      href={`/v1/projects/${skill.data!.projectId}/skills/${skillId}/versions/${version.id}/export`}
                      download={`${skill.data!.key}-v${version.version}.json`}
                    >
                      Export
                    </a>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function DraftEditor({ draftId, onDone }: { draftId: string; onDone: () => void }) {
  const { client } = useSigned();
  const draft = useResource(() => client.call('get', '/v1/projects/{projectId}/skill-drafts/{draftId}', { path: { draftId } }), [client, draftId]);
  if (!draft.data) return draft.error ? <ErrorNotice error={draft.error} /> : <p aria-busy="true">Opening the draft…</p>;
  return <DraftForm draft={draft.data} reload={() => void draft.reload()} onDone={onDone} />;
}

function DraftForm({ draft, reload, onDone }: { draft: PublicSkillDraft; reload: () => void; onDone: () => void }) {
  const { client } = useSigned();
  const draftId = draft.id;
  const [name, setName] = useState(draft.name ?? '');
  const [description, setDescription] = useState(draft.description ?? '');
  const [instructions, setInstructions] = useState(draft.instructions ?? '');
  const [key, setKey] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [folder, setFolder] = useState('');
  const [filePath, setFilePath] = useState('');
  const [fileText, setFileText] = useState('');
  const [report, setReport] = useState<{ valid: boolean; problems: Array<{ path: string; message: string }> } | null>(null);
  const action = useAction();
  const error = action.error;
  const [note, setNote] = useState('');
  const run = (label: string, work: () => Promise<unknown>) => {
    setNote('');
    return action.run(async () => {
      await work();
      setNote(label);
      reload();
    });
  };
  const save = () =>
    run('Saved', () =>
      client.call('patch', '/v1/projects/{projectId}/skill-drafts/{draftId}', {
        path: { draftId },
        body: { name: name || null, description: description || null, instructions: instructions || null },
      }),
    );
  const utf8Base64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
  return (
    <div className="card draft" role="region" aria-label="Draft editor">
      <h3>Draft {draft.name ?? draftId.slice(0, 8)}</h3>
      <div className="row">
        <label>
          Name <span className="muted small">(lowercase-with-hyphens)</span>
          <input value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Description
          <input value={description} onChange={(event) => setDescription(event.target.value)} />
        </label>
      </div>
      <div className="split">
        <label>
          Instructions (Markdown)
          <textarea className="code" rows={12} value={instructions} onChange={(event) => setInstructions(event.target.value)} />
        </label>
        <div aria-label="Preview" role="region">
          <p className="muted small">Preview</p>
          <Markdown text={instructions} />
        </div>
      </div>
      <button type="button" onClick={() => void save()}>
        Save
      </button>
      <h4>Files and folders</h4>
      <ul className="tree">
        {draft.directories.map((directory) => (
          <li key={directory}>
            📁 {directory}/{' '}
            <button
              type="button"
              className="link small"
              onClick={() =>
                void run('Deleted', () =>
                  client.call('delete', '/v1/projects/{projectId}/skill-drafts/{draftId}/entries', {
                    path: { draftId },
                    query: { path: directory, recursive: 'true' },
                  }),
                )
              }
            >
              delete
            </button>
          </li>
        ))}
        {draft.files.map((file) => (
          <li key={file.path}>
            📄 {file.path} <span className="muted small">{file.sizeBytes} bytes</span>{' '}
            <button
              type="button"
              className="link small"
              onClick={() => (setFilePath(file.path), setFileText(new TextDecoder().decode(Uint8Array.from(atob(file.dataBase64), (c) => c.charCodeAt(0)))))}
            >
              edit
            </button>{' '}
            <button
              type="button"
              className="link small"
              onClick={() =>
                void run('Deleted', () =>
                  client.call('delete', '/v1/projects/{projectId}/skill-drafts/{draftId}/entries', { path: { draftId }, query: { path: file.path } }),
                )
              }
            >
              delete
            </button>
          </li>
        ))}
        {draft.directories.length + draft.files.length === 0 ? <li className="muted">No files yet.</li> : null}
      </ul>
      <div className="row">
        <label>
          New folder
          <input value={folder} onChange={(event) => setFolder(event.target.value)} placeholder="references" />
        </label>
        <button
          type="button"
          onClick={() =>
            void run('Folder created', () =>
              client.call('post', '/v1/projects/{projectId}/skill-drafts/{draftId}/directories', { path: { draftId }, body: { path: folder } }),
            )
          }
        >
          Add folder
        </button>
      </div>
      <label>
        File path
        <input value={filePath} onChange={(event) => setFilePath(event.target.value)} placeholder="references/guide.md" />
      </label>
      <label>
        File text (Markdown)
        <textarea className="code" rows={6} value={fileText} onChange={(event) => setFileText(event.target.value)} />
      </label>
      <button
        type="button"
        onClick={() =>
          void run('File saved', () =>
            client.call('put', '/v1/projects/{projectId}/skill-drafts/{draftId}/files', {
              path: { draftId },
              body: { path: filePath, contentType: 'text/markdown', dataBase64: utf8Base64(fileText) },
            }),
          )
        }
      >
        Save file
      </button>
      <h4>Check and publish</h4>
      <button
        type="button"
        onClick={() =>
          void run('Checked', async () =>
            setReport(await client.call('post', '/v1/projects/{projectId}/skill-drafts/{draftId}/validate', { path: { draftId } })),
          )
        }
      >
        Validate
      </button>
      {report ? (
        report.valid ? (
          <p className="notice good" role="status">
            Ready to publish.
          </p>
        ) : (
          <ul className="notice error" role="alert">
            {report.problems.map((problem) => (
              <li key={problem.path + problem.message}>
                <code>{problem.path}</code> {problem.message}
              </li>
            ))}
          </ul>
        )
      ) : null}
      {draft.skillId ? null : (
        <div className="row">
          <label>
            Skill key
            <input value={key} onChange={(event) => setKey(event.target.value)} />
          </label>
          <label>
            Display name
            <input value={displayName} onChange={(event) => setDisplayName(event.target.value)} />
          </label>
        </div>
      )}
      <button
        type="button"
        onClick={() =>
          void run('Published', async () => {
            await client.call('post', '/v1/projects/{projectId}/skill-drafts/{draftId}/publish', {
              path: { draftId },
              body: draft.skillId ? {} : { key, displayName },
            });
            onDone();
          })
        }
      >
        Publish
      </button>{' '}
      <button
        type="button"
        className="danger"
        onClick={() =>
          void run('Discarded', async () => {
            await client.call('delete', '/v1/projects/{projectId}/skill-drafts/{draftId}', { path: { draftId } });
            onDone();
          })
        }
      >
        Discard draft
      </button>
      <ErrorNotice error={error} />
      {note ? (
        <p className="muted" role="status">
          {note}
        </p>
      ) : null}
    </div>
  );
}
