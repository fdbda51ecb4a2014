import type { Actor, ServiceContext } from './service-context.ts';

/** Verbs that act for a principal call this first; system callers must pass an actor too. */
export function requireActor(ctx: ServiceContext): Actor {
  if (!ctx.actor) throw new Error('This operation needs an authenticated actor');
  return ctx.actor;
}
