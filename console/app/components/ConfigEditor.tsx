import { useId, useMemo, useState } from 'react';
import { parseAgentConfig } from '../../../domain/agent-config/parse.ts';
import { CONSOLE_AGENT_RULES, consoleConfigProblem, type ConsoleProblem } from '../../../domain/agent-config/console-rules.ts';

type Config = Record<string, unknown> & { systemPrompt?: string; modelPreset?: string; limits?: { maxTurns?: number; timeoutMs?: number } };

/** The fields the form edits; everything else of a config is the "other settings" JSON. */
const FORM_FIELDS = ['systemPrompt', 'modelPreset', 'limits'] as const;

export const DEFAULT_CONFIG: Config = {
  systemPrompt: '',
  modelPreset: '',
  limits: { maxTurns: CONSOLE_AGENT_RULES.maxTurns, timeoutMs: CONSOLE_AGENT_RULES.timeoutMs.default },
};

function otherSettings(config: Config): string {
  const rest = Object.fromEntries(Object.entries(config).filter(([key]) => !(FORM_FIELDS as readonly string[]).includes(key)));
  return JSON.stringify(rest, null, 2);
}

/**
 * An agent config: the system prompt, preset and limits as fields, the rest (tools, Skills,
 * sandbox, MCP bindings, delegates, Harness Operations) as JSON. `check()` applies the
 * console's rules, then the very parser the server publishes with (domain/agent-config), so a
 * mistake shows at its path before anything is sent; the server's own refusal shows the same way.
 */
export function useConfigEditor(initial: Config, root: string) {
  const [systemPrompt, setSystemPrompt] = useState(initial.systemPrompt ?? '');
  const [modelPreset, setModelPreset] = useState(initial.modelPreset ?? '');
  const [maxTurns, setMaxTurns] = useState(String(initial.limits?.maxTurns ?? CONSOLE_AGENT_RULES.maxTurns));
  const [timeoutMs, setTimeoutMs] = useState(String(initial.limits?.timeoutMs ?? CONSOLE_AGENT_RULES.timeoutMs.default));
  const [other, setOther] = useState(otherSettings(initial));
  const [problem, setProblem] = useState<ConsoleProblem | null>(null);

  const check = (): Config | null => {
    let rest: Record<string, unknown>;
    try {
      rest = other.trim() ? (JSON.parse(other) as Record<string, unknown>) : {};
      if (!rest || typeof rest !== 'object' || Array.isArray(rest)) throw new Error('not an object');
    } catch {
      setProblem({ path: `${root} (other settings)`, message: 'must be a JSON object' });
      return null;
    }
    const number = (text: string) => (text.trim() === '' ? undefined : Number(text));
    const config: Config = { ...rest, systemPrompt, modelPreset, limits: { maxTurns: number(maxTurns), timeoutMs: number(timeoutMs) } as Config['limits'] };
    const found = consoleConfigProblem(config, root);
    if (found) return (setProblem(found), null);
    try {
      parseAgentConfig(config, { root });
    } catch (error) {
      const details = (error as { details?: { path?: string } }).details;
      setProblem({ path: details?.path ?? root, message: (error as Error).message });
      return null;
    }
    setProblem(null);
    return config;
  };
  return {
    fields: { systemPrompt, setSystemPrompt, modelPreset, setModelPreset, maxTurns, setMaxTurns, timeoutMs, setTimeoutMs, other, setOther },
    problem,
    check,
  };
}

export function ConfigFields({ editor, presets, root }: { editor: ReturnType<typeof useConfigEditor>; presets: string[]; root: string }) {
  const id = useId();
  const { fields, problem } = editor;
  const invalid = (field: string) => (problem?.path === `${root}.${field}` ? { 'aria-invalid': true, 'aria-describedby': `${id}-problem` } : {});
  const presetOptions = useMemo(
    () => (presets.includes(fields.modelPreset) || !fields.modelPreset ? presets : [fields.modelPreset, ...presets]),
    [presets, fields.modelPreset],
  );
  return (
    <fieldset className="config">
      <legend>Configuration</legend>
      <label>
        System prompt <span className="muted small">(at least {CONSOLE_AGENT_RULES.systemPromptMinLength} characters)</span>
        <textarea
          name="systemPrompt"
          rows={5}
          value={fields.systemPrompt}
          onChange={(event) => fields.setSystemPrompt(event.target.value)}
          {...invalid('systemPrompt')}
        />
      </label>
      <label>
        Model preset
        <select name="modelPreset" value={fields.modelPreset} onChange={(event) => fields.setModelPreset(event.target.value)} {...invalid('modelPreset')}>
          <option value="">Choose a preset…</option>
          {presetOptions.map((key) => (
            <option key={key} value={key}>
              {key}
            </option>
          ))}
        </select>
      </label>
      <div className="row">
        <label>
          Max turns <span className="muted small">(the console uses {CONSOLE_AGENT_RULES.maxTurns})</span>
          <input
            name="maxTurns"
            type="number"
            inputMode="numeric"
            value={fields.maxTurns}
            onChange={(event) => fields.setMaxTurns(event.target.value)}
            {...invalid('limits.maxTurns')}
          />
        </label>
        <label>
          Timeout (ms) <span className="muted small">(1,000-3,600,000)</span>
          <input
            name="timeoutMs"
            type="number"
            inputMode="numeric"
            value={fields.timeoutMs}
            onChange={(event) => fields.setTimeoutMs(event.target.value)}
            {...invalid('limits.timeoutMs')}
          />
        </label>
      </div>
      <label>
        Other settings (JSON: tools, skillVersionIds, sandbox, mcpBindings, delegates, harnessOperations)
        <textarea
          name="otherSettings"
          className="code"
          rows={8}
          value={fields.other}
          onChange={(event) => fields.setOther(event.target.value)}
          spellCheck={false}
        />
      </label>
      {problem ? (
        <div className="notice error" role="alert" id={`${id}-problem`}>
          <code>{problem.path}</code> {problem.message}
        </div>
      ) : null}
    </fieldset>
  );
}
