/**
 * Safe relative paths for object-storage prefixes and logical keys: `/`-separated segments of
 * letters, digits, `.`, `_` and `-`, never `.` or `..`, no leading slash, no empty segment. They
 * can never climb out of the tenant's folder or address another tenant's objects.
 */
const SEGMENT = /^[A-Za-z0-9._-]{1,255}$/;
export const MAX_RELATIVE_PATH_LENGTH = 1024;

export function safeRelativePathProblem(text: string, options: { allowTrailingSlash?: boolean } = {}): string | null {
  if (text.length === 0) return 'must not be empty';
  if (text.length > MAX_RELATIVE_PATH_LENGTH) return `must be at most ${MAX_RELATIVE_PATH_LENGTH} characters`;
  const body = options.allowTrailingSlash && text.endsWith('/') ? text.slice(0, -1) : text;
  if (body.startsWith('/')) return 'must be a relative path (no leading "/")';
  for (const segment of body.split('/')) {
    if (segment === '') return 'must not contain empty path segments';
    if (segment === '.' || segment === '..') return 'must not contain "." or ".." segments';
    if (!SEGMENT.test(segment)) return 'segments may hold only letters, digits, ".", "_" and "-"';
  }
  return null;
}

/**
 * Where a project's objects live in a bucket: the connection's prefix, then the tenant path.
 * Logical keys (`run-files/...`, `workspace-backups/...`) are relative to it.
 */
export function tenantRoot(input: { providerPrefix: string | null; organizationId: string; projectId: string }): string {
  return `${projectsRoot(input)}${input.projectId}/`;
}

/** The folder holding every project folder of an organization on a connection (retention sweeps deleted projects' there). */
export function projectsRoot(input: { providerPrefix: string | null; organizationId: string }): string {
  const organization = `orgs/${input.organizationId}/projects/`;
  return input.providerPrefix ? `${input.providerPrefix}/${organization}` : organization;
}
