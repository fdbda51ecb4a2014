/** The methods that change state: they need an Idempotency-Key and, with a cookie, an allowed Origin (spec 2 rules 2-3). */
const MUTATING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const isMutation = (method: string): boolean => MUTATING_METHODS.has(method.toUpperCase());
