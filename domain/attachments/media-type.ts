/**
 * Media type syntax (RFC 9110 §8.3.1 with RFC 6838 §4.2 names): `type/subtype` followed by
 * optional `; name=value` parameters. Only the essence (`type/subtype`, lowercased) matters to
 * the file rules: parameters such as `charset` are checked for syntax and then ignored.
 */

/** Longer declared types are refused outright; RFC 6838 caps type and subtype at 127 each. */
export const MEDIA_TYPE_MAX_LENGTH = 255;

const NAME = '[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}';
const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
const QUOTED = '"(?:[\\t\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]|\\\\[\\t\\x20-\\x7E])*"';
const MEDIA_TYPE = new RegExp(`^(${NAME})/(${NAME})(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED}))*$`);

/** `Text/Plain; charset=UTF-8` → `text/plain`; null when the value is not a media type. */
export function mediaTypeEssence(value: string): string | null {
  if (value.length > MEDIA_TYPE_MAX_LENGTH) return null;
  const match = MEDIA_TYPE.exec(value);
  return match ? `${match[1]}/${match[2]}`.toLowerCase() : null;
}
