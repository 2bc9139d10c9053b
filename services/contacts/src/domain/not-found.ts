import { AppError } from '@switchboard/service-kit';

// Ids of another organization answer exactly like ids that do not exist (ARCHITECTURE §3).
export const contactNotFound = (detail: string) =>
  new AppError('not_found', `Contact not found: no contact with ${detail}`);

export const groupNotFound = (ids: readonly number[]) =>
  new AppError(
    'not_found',
    `Group not found: no group with id ${ids.join(', ')} in this organization`,
  );
