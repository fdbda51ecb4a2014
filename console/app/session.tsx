import { createContext, useContext } from 'react';
import type { Context, ProjectClient } from '../../client/src/index.ts';
import type { Provider } from './api.ts';

/** The signed-in console: who and where (`GET /context`), and a client of the active project. */
export type Signed = { provider: Provider; context: Context; client: ProjectClient; reloadContext: () => Promise<void> };

export const SignedContext = createContext<Signed | null>(null);

export function useSigned(): Signed {
  const signed = useContext(SignedContext);
  if (!signed) throw new Error('useSigned outside the signed-in console');
  return signed;
}
