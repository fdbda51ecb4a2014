/**
 * A schedule's time zone: an IANA name (`UTC`, `Europe/Paris`, `America/Argentina/Buenos_Aires`)
 * as the runtime's time zone database knows it. Offsets (`+01:00`), which `Intl` also accepts,
 * are refused: Temporal resolves the name with its own (Go) zone database, which knows names only.
 * Names are matched ignoring case and stored as `Intl` spells them, since Temporal's lookup is
 * case-sensitive.
 */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

/** The canonical spelling of an IANA time zone name, or null when it is not one. */
export function canonicalTimeZone(name: string): string | null {
  if (name.length > 64 || !IANA_NAME.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
