/**
 * How the console names a product event kind. Spec 3 names two model-progress kinds' labels
 * ("Model call started", "Model retry scheduled"); the rest read the same way from their kind
 * (`run.waiting_for_approval` → "Run waiting for approval").
 */
export function eventLabel(kind: string): string {
  const words = kind.replace(/[._]/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
