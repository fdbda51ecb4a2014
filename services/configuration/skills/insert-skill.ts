import { skills } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { isUniqueViolation } from '../../kernel/unique-violation.ts';

/**
 * Inserts a Skill row (version 0 until its first version lands, in the same transaction). The
 * partial unique index on live keys makes a duplicate a 409, also under concurrent creates.
 */
export async function insertSkill(tx: ServiceContext, values: { organizationId: string; projectId: string; key: string; displayName: string }) {
  const now = tx.clock.now();
  try {
    const [row] = await tx.db
      .insert(skills)
      .values({ ...values, createdAt: now, updatedAt: now })
      .returning();
    return row!;
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`A Skill with key "${values.key}" already exists in this project`, { path: 'body.key' });
    throw error;
  }
}
