/**
 * A tool call as the model asked for it, stored on the assistant message of its turn
 * (`content.toolCalls`) and recorded as a tool call from there.
 */
export type ModelToolCall = {
  /** The provider's call id (synthesized when the vendor has none, e.g. Gemini). */
  id: string;
  name: string;
  /** Parsed JSON arguments; `argumentsText` keeps the raw text when it did not parse. */
  arguments: unknown;
  argumentsText: string;
};
