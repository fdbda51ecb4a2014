type Operation = {
  summary?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string }>;
  requestBody?: unknown;
  responses?: Record<string, unknown>;
  'x-required-scopes'?: string[];
};
type Document = { info: { title: string; version: string; description?: string }; paths: Record<string, Record<string, Operation>> };

const escape = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
/** Inline code spans of the summaries (`like this`) as <code>; everything else escaped. */
const inline = (text: string) => escape(text).replace(/`([^`]+)`/g, '<code>$1</code>');

/**
 * The human-readable API reference (issue 17 point 1): one server-rendered page from the same
 * OpenAPI document `GET /v1/openapi.json` serves, grouped by resource, with each operation's
 * scopes, parameters and success statuses. No script: it reads anywhere, screen readers included.
 */
export function renderReference(document: Document): string {
  const groups = new Map<string, Array<{ method: string; path: string; operation: Operation }>>();
  for (const [path, methods] of Object.entries(document.paths)) {
    const resource = path.replace(/^\/v1\/(projects\/\{projectId\}\/|organizations\/\{organizationId\}\/)?/, '').split('/')[0] || 'root';
    for (const [method, operation] of Object.entries(methods)) {
      const list = groups.get(resource) ?? [];
      list.push({ method: method.toUpperCase(), path, operation });
      groups.set(resource, list);
    }
  }
  const sections = [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([resource, operations]) => {
      const items = operations
        .map(({ method, path, operation }) => {
          const scopes = operation['x-required-scopes'];
          const access =
            scopes === undefined
              ? 'no credentials'
              : scopes.length === 0
                ? 'any signed-in principal'
                : scopes.map((scope) => `<code>${escape(scope)}</code>`).join(' and ');
          const parameters = (operation.parameters ?? [])
            .filter((parameter) => parameter.in !== 'path')
            .map(
              (parameter) =>
                `<li><code>${escape(parameter.name)}</code> (${escape(parameter.in)}${parameter.required ? ', required' : ''})${parameter.description ? ` — ${inline(parameter.description)}` : ''}</li>`,
            )
            .join('');
          const statuses = Object.keys(operation.responses ?? {}).filter((status) => Number(status) < 400);
          return `<article><h3><span class="method">${method}</span> <code>${escape(path)}</code></h3><p>${inline(operation.summary ?? '')}</p><dl><dt>Access</dt><dd>${access}</dd>${operation.requestBody ? '<dt>Body</dt><dd>JSON (schema in the document)</dd>' : ''}<dt>Success</dt><dd>${statuses.join(', ') || '—'}</dd></dl>${parameters ? `<ul>${parameters}</ul>` : ''}</article>`;
        })
        .join('\n');
      return `<section aria-labelledby="g-${escape(resource)}"><h2 id="g-${escape(resource)}">${escape(resource)}</h2>\n${items}</section>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(document.info.title)} — reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}h2{border-bottom:1px solid #ddd;margin-top:2.5rem}article{margin:1rem 0;padding:.5rem 1rem;border-left:3px solid #ccd}h3{font-size:1rem;margin:.25rem 0}.method{display:inline-block;min-width:4.5rem;font-weight:700}dl{display:grid;grid-template-columns:6rem 1fr;margin:.25rem 0}dt{color:#555}code{background:#f3f3f6;padding:0 .2rem;border-radius:3px}</style>
</head><body><main>
<h1>${escape(document.info.title)} <small>${escape(document.info.version)}</small></h1>
<p>${inline(document.info.description ?? '')}</p>
<p>Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1). Errors use one envelope <code>{error: {code, message, requestId, details?}}</code>.</p>
${sections}
</main></body></html>`;
}
