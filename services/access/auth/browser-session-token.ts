import { createHash } from 'node:crypto';

/** How long a cookie session lasts (spec 3 "Browser sessions"). */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

/** Tokens are stored only as their SHA-256. */
export const hashSessionToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
