import { Hono } from 'hono';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../config/logger.ts';
import { ValidationError } from '../domain/errors.ts';
import type { AppEnv } from './env.ts';
import { handleError } from './errors.ts';
import { requestId } from './middleware/request-id.ts';
import { validate } from './validation.ts';

/** The renderer every error response passes through. */
function appThrowing(error: () => never) {
  const app = new Hono<AppEnv>();
  app.use(requestId(createLogger({ level: 'silent' })));
  app.onError(handleError);
  app.get('/', () => error());
  return app;
}

describe('error rendering', () => {
  it('never echoes a received value from valibot default messages (it may be a credential)', async () => {
    const fromHook = appThrowing(() => validate(v.object({ providerType: v.picklist(['vendor_a']) }), { providerType: 'sk-live-SECRET-ONE' }, 'body') as never);
    const fromService = appThrowing(() => {
      const parsed = v.safeParse(v.number(), 'sk-live-SECRET-TWO');
      throw new ValidationError(`Invalid outcome: ${parsed.issues![0].message}`);
    });
    for (const app of [fromHook, fromService]) {
      const response = await app.request('/');
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).not.toContain('SECRET');
      expect(JSON.parse(text).error.message).toContain('Expected');
    }
  });
});
