import { ApiError } from '../api.ts';

/** A refusal as the service worded it, with its request id (what support asks for) and the field it names. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof ApiError) {
    const path = typeof error.details?.path === 'string' ? error.details.path : null;
    return (
      <div className="notice error" role="alert">
        <strong>{error.envelopeMessage}</strong>
        {path ? (
          <div>
            at <code>{path}</code>
          </div>
        ) : null}
        <div className="muted small">
          {error.code} · request <code>{error.requestId ?? 'unknown'}</code>
        </div>
      </div>
    );
  }
  return (
    <div className="notice error" role="alert">
      <strong>{error instanceof Error ? error.message : String(error)}</strong>
    </div>
  );
}
