import type { Collection, Connection } from 'mongoose';
import type { Leases } from './leases';
import type { Logger } from './logger';
import type { SecretBox } from './secret-box';
import { startPeriodicJob, type PeriodicJob } from './periodic-job';

export interface ResealOutcome {
  /** Values sealed (from clear) or re-sealed with the current key. */
  resealed: number;
  /** Values sealed with a key no longer in the ring: left as they are. */
  unreadable: number;
}

/** Says what a re-seal did: nothing when there was nothing to do. */
export function reportReseal(logger: Logger, what: string, outcome: ResealOutcome): void {
  if (outcome.resealed > 0)
    logger.info({ what, ...outcome }, 'secrets re-sealed with the current key');
  if (outcome.unreadable > 0) {
    logger.warn({ what, ...outcome }, 'secrets sealed with a key no longer configured');
  }
}

/**
 * Re-seals on a timer what is still sealed with an older key: values a replica that did not know
 * the new key yet wrote during a rotation move over without another restart.
 */
export function startResealJob(options: {
  what: string;
  everyMs: number;
  logger: Logger;
  reseal: () => Promise<ResealOutcome>;
  /** One replica re-seals at a time (the writes are conditional, so a second would only repeat reads). */
  leases?: Leases;
}): PeriodicJob {
  return startPeriodicJob({
    name: `reseal-${options.what}`,
    everyMs: options.everyMs,
    logger: options.logger,
    leases: options.leases,
    run: async () => reportReseal(options.logger, options.what, await options.reseal()),
  });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A filter value matching a sealed value that is not sealed with the current key. */
export const sealedWithOlderKey = (box: SecretBox) => ({
  $type: 'string',
  $not: new RegExp(`^${escapeRegExp(box.currentPrefix)}`),
});

/**
 * Re-seals with the current key every value of `field` sealed with another key. Each write is
 * conditional on the value read, so replicas doing this at once, or a change made meanwhile
 * (a rotated webhook secret), never lose a value.
 */
export async function resealField(
  collection: Collection,
  box: SecretBox,
  field: string,
): Promise<ResealOutcome> {
  const stale = await collection
    .find({ [field]: sealedWithOlderKey(box) }, { projection: { [field]: 1 } })
    .toArray();
  const outcome: ResealOutcome = { resealed: 0, unreadable: 0 };
  for (const doc of stale) {
    const sealed = String(doc[field]);
    let value: string;
    try {
      value = box.open(sealed);
    } catch {
      outcome.unreadable += 1;
      continue;
    }
    const result = await collection.updateOne(
      { _id: doc._id, [field]: sealed },
      { $set: { [field]: box.seal(value) } },
    );
    outcome.resealed += result.modifiedCount;
  }
  return outcome;
}

/** Re-seals one field of one collection now (at start), then on a timer. */
export async function startFieldReseal(options: {
  db: Connection;
  collection: string;
  field: string;
  box: SecretBox;
  everyMs: number;
  logger: Logger;
  leases?: Leases;
}): Promise<PeriodicJob> {
  const what = `${options.collection}.${options.field}`;
  const reseal = () =>
    resealField(options.db.collection(options.collection), options.box, options.field);
  reportReseal(options.logger, what, await reseal());
  return startResealJob({
    what,
    everyMs: options.everyMs,
    logger: options.logger,
    reseal,
    leases: options.leases,
  });
}
