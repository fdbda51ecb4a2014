import { hasScope, type Scope } from '../../../domain/scopes.ts';
import { useSigned } from '../session.tsx';

/**
 * Whether the signed-in principal holds every scope named (`*` holds them all): screens leave
 * out the actions the service would refuse, so a viewer sees no buttons that only fail.
 */
export function useCan(): (...scopes: Scope[]) => boolean {
  const { context } = useSigned();
  return (...scopes) => scopes.every((scope) => hasScope(context.principal.scopes, scope));
}
