import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { ErrorNotice } from './ErrorNotice.tsx';
import { useAction } from './useAction.ts';

export type Field = {
  name: string;
  label: string;
  type?: 'text' | 'password' | 'number' | 'select' | 'checkbox' | 'json' | 'textarea' | 'list';
  options?: Array<{ value: string; label: string }>;
  required?: boolean;
  initial?: string | boolean;
  hint?: string;
  /** Leave the field out of the body when it is empty. */
  optional?: boolean;
};

type Body = Record<string, unknown>;

/**
 * A create/change form for a configuration resource: labelled fields, the body built from them
 * (JSON fields parsed, `list` fields split on commas), the service's refusal shown with its
 * request id and the field path it names.
 */
export function SimpleForm({
  title,
  fields,
  submitLabel,
  doneLabel = 'Saved.',
  onSubmit,
  children,
}: {
  title: string;
  fields: Field[];
  submitLabel: string;
  doneLabel?: string;
  onSubmit: (body: Body) => Promise<unknown>;
  children?: ReactNode;
}) {
  const id = useId();
  const initial = () =>
    Object.fromEntries(
      fields.map((field) => [
        field.name,
        field.initial ?? (field.type === 'checkbox' ? false : field.type === 'select' ? (field.options?.[0]?.value ?? '') : ''),
      ]),
    );
  const [values, setValues] = useState<Record<string, string | boolean>>(initial);
  const { busy, error, run } = useAction();
  const [done, setDone] = useState(false);
  // A select whose options changed since the form was drawn (a server discovered into a new version) offers its first option.
  const valueOf = (field: Field) => {
    const value = values[field.name];
    if (field.type !== 'select' || field.options?.some((option) => option.value === value)) return value;
    return field.options?.[0]?.value ?? '';
  };
  const bodyOf = (): Body => {
    const body: Body = {};
    for (const field of fields) {
      const value = valueOf(field);
      if (field.optional && (value === '' || value === undefined)) continue;
      if (field.type === 'checkbox') body[field.name] = Boolean(value);
      else if (field.type === 'number') body[field.name] = Number(value);
      else if (field.type === 'list')
        body[field.name] = String(value)
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);
      else if (field.type === 'json') {
        try {
          body[field.name] = JSON.parse(String(value) || 'null');
        } catch {
          throw new Error(`${field.label} must be JSON`);
        }
      } else body[field.name] = value;
    }
    return body;
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    void run(async () => {
      await onSubmit(bodyOf());
      setValues(initial());
      setDone(true);
    });
  };
  const set = (name: string, value: string | boolean) => setValues((previous) => ({ ...previous, [name]: value }));
  return (
    <form className="card" onSubmit={submit} aria-label={title}>
      <h3>{title}</h3>
      {fields.map((field) => {
        const inputId = `${id}-${field.name}`;
        const value = valueOf(field);
        const common = { id: inputId, name: field.name, required: field.required };
        return (
          <div className={`field ${field.type === 'checkbox' ? 'check' : ''}`} key={field.name}>
            <label htmlFor={inputId}>
              {field.label}
              {field.hint ? <span className="muted small"> ({field.hint})</span> : null}
            </label>
            {field.type === 'select' ? (
              <select {...common} value={String(value)} onChange={(event) => set(field.name, event.target.value)}>
                {field.options?.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            ) : field.type === 'checkbox' ? (
              <input {...common} type="checkbox" checked={Boolean(value)} onChange={(event) => set(field.name, event.target.checked)} />
            ) : field.type === 'json' || field.type === 'textarea' ? (
              <textarea
                {...common}
                className={field.type === 'json' ? 'code' : ''}
                rows={4}
                value={String(value)}
                onChange={(event) => set(field.name, event.target.value)}
                spellCheck={field.type !== 'json'}
              />
            ) : (
              <input
                {...common}
                type={field.type === 'password' ? 'password' : field.type === 'number' ? 'number' : 'text'}
                autoComplete={field.type === 'password' ? 'new-password' : 'off'}
                value={String(value)}
                onChange={(event) => set(field.name, event.target.value)}
              />
            )}
          </div>
        );
      })}
      {children}
      <ErrorNotice error={error} />
      {done ? (
        <p className="notice good" role="status">
          {doneLabel}
        </p>
      ) : null}
      <button type="submit" disabled={busy} aria-busy={busy}>
        {busy ? 'Working…' : submitLabel}
      </button>
    </form>
  );
}
