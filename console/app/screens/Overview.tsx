import { SimpleForm } from '../components/SimpleForm.tsx';
import { Link } from '../router.tsx';
import { useSigned } from '../session.tsx';

/** Who am I, where, with what (`GET /context`), and where to start. */
export function OverviewScreen() {
  const { context, client, reloadContext } = useSigned();
  const { principal } = context;
  return (
    <section>
      <h1>Overview</h1>
      <dl className="facts">
        <dt>Signed in as</dt>
        <dd>
          {principal.displayName ?? principal.subject} <span className="muted">({principal.kind})</span>
        </dd>
        <dt>Organization</dt>
        <dd>
          {context.organization.name} <span className="muted">{context.organization.slug}</span>
        </dd>
        <dt>Project</dt>
        <dd>
          {context.project.name} <span className="muted">{context.project.slug}</span>
        </dd>
        <dt>Roles</dt>
        <dd>
          project {principal.projectRole ?? 'none'} · organization {principal.organizationRole ?? 'none'}
        </dd>
        <dt>Scopes</dt>
        <dd>
          {principal.scopes.map((scope) => (
            <code key={scope}>{scope}</code>
          ))}
        </dd>
        <dt>Sign-in</dt>
        <dd>{context.authProvider}</dd>
        <dt>Model presets</dt>
        <dd>
          {context.activeModelPresets.length ? context.activeModelPresets.map((key) => <code key={key}>{key}</code>) : <span className="muted">none yet</span>}
        </dd>
      </dl>
      <h2>Getting started</h2>
      <ol className="steps">
        <li>
          <Link to="/connections">Connect a model provider and create a preset</Link> — agents name a preset, not a vendor.
        </li>
        <li>
          <Link to="/agents">Create an agent</Link> with a system prompt and limits.
        </li>
        <li>
          <Link to="/sessions">Start a session</Link> and watch its run live; answer tools and approvals under <Link to="/pending">Pending work</Link>.
        </li>
      </ol>
      <h2>Projects</h2>
      <p>Each project keeps its own agents, sessions, connections and keys; switch between them at the top of the page.</p>
      <SimpleForm
        title="Create a project"
        submitLabel="Create project"
        doneLabel="Created: choose it in the project switcher."
        fields={[
          { name: 'name', label: 'Name', required: true },
          { name: 'slug', label: 'Slug', required: true, hint: 'lowercase, e.g. research' },
        ]}
        onSubmit={async (body) => {
          await client.call('post', '/v1/projects', { body: body as never });
          await reloadContext();
        }}
      />
    </section>
  );
}
