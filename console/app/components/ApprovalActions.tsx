import { useId, useState } from 'react';
import type { PublicApproval } from '../../../client/src/index.ts';
import { useSigned } from '../session.tsx';
import { ErrorNotice } from './ErrorNotice.tsx';
import { useAction } from './useAction.ts';

/** The note is optional and at most 2,000 characters (spec 3 "Limits"). */
export const APPROVAL_NOTE_MAX = 2_000;

/** Approve or deny one pending approval, with an optional note. */
export function ApprovalActions({ approval, onDecided }: { approval: PublicApproval; onDecided: () => void }) {
  const { client } = useSigned();
  const id = useId();
  const [note, setNote] = useState('');
  const { busy, error, run } = useAction();
  const decide = (status: 'approved' | 'denied') =>
    run(async () => {
      await client.call('post', '/v1/projects/{projectId}/approvals/{approvalId}/decision', {
        path: { approvalId: approval.id },
        body: { status, ...(note.trim() ? { note: note.trim() } : {}) },
      });
      onDecided();
    });
  return (
    <div className="approval" role="group" aria-label={`Approval for ${approval.toolName}`}>
      <label htmlFor={`${id}-note`}>
        Note{' '}
        <span className="muted small">
          (optional, {note.length}/{APPROVAL_NOTE_MAX})
        </span>
      </label>
      <input id={`${id}-note`} value={note} maxLength={APPROVAL_NOTE_MAX} onChange={(event) => setNote(event.target.value)} />
      <button type="button" onClick={() => void decide('approved')} disabled={busy}>
        Approve
      </button>
      <button type="button" className="danger" onClick={() => void decide('denied')} disabled={busy}>
        Deny
      </button>
      <ErrorNotice error={error} />
    </div>
  );
}
