/**
 * Preset lists are ordered by key (deployment and project presets merged), so the cursor is
 * the last key returned, opaque (base64url of `p1|<key>`).
 */
export function encodePresetCursor(key: string): string {
  return btoa(`p1|${key}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The last key of the previous page, or null for a cursor that is not ours. */
export function decodePresetCursor(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return null;
  }
  const match = /^p1\|([a-z0-9][a-z0-9_-]{0,63})$/.exec(text);
  return match ? match[1]! : null;
}
