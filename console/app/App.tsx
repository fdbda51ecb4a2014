import { useCallback, useEffect, useState } from 'react';
import type { Context } from '../../client/src/index.ts';
import { hasScope, type Scope } from '../../domain/scopes.ts';
import { apiCall, clientFor, loadContext, loadProvider, type Provider } from './api.ts';
import { ErrorNotice } from './components/ErrorNotice.tsx';
import { Link, matchPath, navigate, usePath } from './router.tsx';
import { SignedContext, type Signed } from './session.tsx';
import { AccessScreen } from './screens/Access.tsx';
import { AgentDetailScreen } from './screens/AgentDetail.tsx';
import { AgentsScreen } from './screens/Agents.tsx';
import { BackupScreen } from './screens/Backup.tsx';
import { ConnectionsScreen } from './screens/Connections.tsx';
import { McpScreen } from './screens/Mcp.tsx';
import { MemoryScreen, MemoryStoreScreen } from './screens/Memory.tsx';
import { OverviewScreen } from './screens/Overview.tsx';
import { PendingWorkScreen } from './screens/PendingWork.tsx';
import { SchedulesScreen } from './screens/Schedules.tsx';
import { SessionDetailScreen } from './screens/SessionDetail.tsx';
import { SessionsScreen } from './screens/Sessions.tsx';
import { SignInScreen } from './screens/SignIn.tsx';
import { SkillsScreen } from './screens/Skills.tsx';
import { UsageScreen } from './screens/Usage.tsx';
import { WebhooksScreen } from './screens/Webhooks.tsx';

/** The screens, with the scope a screen needs to show anything (left out of the menu without it). */
const NAVIGATION: ReadonlyArray<readonly [string, string, Scope?]> = [
  ['/', 'Overview'],
  ['/agents', 'Agents'],
  ['/sessions', 'Sessions'],
  ['/schedules', 'Schedules', 'schedule:read'],
  ['/usage', 'Usage', 'usage:read'],
  ['/pending', 'Pending work'],
  ['/connections', 'Models & connections'],
  ['/skills', 'Skills'],
  ['/memory', 'Memory', 'memory:read'],
  ['/mcp', 'MCP'],
  ['/webhooks', 'Webhooks'],
  ['/access', 'Members & API keys'],
  ['/backup', 'Backup & restore'],
];

function Screen({ path }: { path: string }) {
  let params: Record<string, string> | null;
  if ((params = matchPath('/agents/:agentId', path))) return <AgentDetailScreen agentId={params.agentId!} />;
  if ((params = matchPath('/sessions/:sessionId', path))) return <SessionDetailScreen sessionId={params.sessionId!} />;
  if ((params = matchPath('/memory/:storeId', path))) return <MemoryStoreScreen storeId={params.storeId!} />;
  switch (path.split('?')[0]) {
    case '/':
      return <OverviewScreen />;
    case '/agents':
      return <AgentsScreen />;
    case '/sessions':
      return <SessionsScreen />;
    case '/schedules':
      return <SchedulesScreen />;
    case '/usage':
      return <UsageScreen />;
    case '/pending':
      return <PendingWorkScreen />;
    case '/connections':
      return <ConnectionsScreen />;
    case '/skills':
      return <SkillsScreen />;
    case '/memory':
      return <MemoryScreen />;
    case '/mcp':
      return <McpScreen />;
    case '/webhooks':
      return <WebhooksScreen />;
    case '/access':
      return <AccessScreen />;
    case '/backup':
      return <BackupScreen />;
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>
            Nothing lives at <code>{path}</code>. <Link to="/">Back to the overview</Link>.
          </p>
        </section>
      );
  }
}

export function App() {
  const path = usePath();
  const [headerError, setHeaderError] = useState<unknown>(null);
  const [state, setState] = useState<{ provider: Provider | null; context: Context | null; error: unknown; loading: boolean }>({
    provider: null,
    context: null,
    error: null,
    loading: true,
  });

  const reloadContext = useCallback(async () => {
    try {
      const provider = state.provider ?? (await loadProvider());
      setState({ provider, context: await loadContext(), error: null, loading: false });
    } catch (error) {
      setState((previous) => ({ ...previous, error, loading: false }));
    }
  }, [state.provider]);

  useEffect(() => {
    void reloadContext();
    // Once, on load: later reloads come from sign-in, project switches and sign-out.
  }, []);

  if (state.loading)
    return (
      <p className="loading" aria-busy="true">
        Loading the console…
      </p>
    );
  if (!state.provider) return <ErrorNotice error={state.error} />;
  if (!state.context) return <SignInScreen provider={state.provider} onSignedIn={reloadContext} error={state.error} />;

  const context = state.context;
  const signed: Signed = { provider: state.provider, context, client: clientFor(context.project.id), reloadContext };
  // A refused switch or sign-out (say, no membership in that project) shows above the screen.
  const headerAction = (work: () => Promise<void>) => {
    setHeaderError(null);
    work().catch(setHeaderError);
  };
  const switchProject = (projectId: string) =>
    headerAction(async () => {
      await apiCall('POST', '/auth/switch-project', { projectId });
      navigate('/');
      await reloadContext();
    });
  const signOut = () =>
    headerAction(async () => {
      const answer = await apiCall<{ redirectUrl?: string }>('POST', '/auth/logout');
      if (answer.redirectUrl) window.location.assign(answer.redirectUrl);
      else await reloadContext();
    });

  return (
    <SignedContext.Provider value={signed}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Agent Runtime</span>
        <span className="muted">{context.organization.name}</span>
        <label className="switcher">
          Project
          <select
            aria-label="Project"
            value={context.project.id}
            onChange={(event) => switchProject(event.target.value)}
            disabled={state.provider.mode !== 'development' && context.projects.length < 2}
          >
            {context.projects.map((project) => (
              <option key={project.id} value={project.id}>
                {project.name}
              </option>
            ))}
          </select>
        </label>
        <span className="who" title={context.principal.scopes.join(' ')}>
          {context.principal.displayName ?? context.principal.subject} · {context.principal.projectRole ?? context.principal.kind}
        </span>
        {state.provider.logoutSupported ? (
          <button type="button" className="link" onClick={signOut}>
            Sign out
          </button>
        ) : null}
      </header>
      <div className="layout">
        <nav className="side" aria-label="Console">
          <ul>
            {NAVIGATION.filter(([, , scope]) => !scope || hasScope(context.principal.scopes, scope)).map(([to, label]) => {
              const active = to === '/' ? path === '/' : path.startsWith(to);
              return (
                <li key={to}>
                  <Link to={to} aria-current={active ? 'page' : undefined}>
                    {label}
                  </Link>
                </li>
              );
            })}
          </ul>
          <p className="muted small">
            <a href="/reference">API reference</a>
          </p>
        </nav>
        <main id="main" tabIndex={-1}>
          <ErrorNotice error={headerError} />
          <Screen key={`${context.project.id}${path.split('?')[0]}`} path={path} />
        </main>
      </div>
    </SignedContext.Provider>
  );
}
