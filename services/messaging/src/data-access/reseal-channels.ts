import type { Collection } from 'mongoose';
import { sealedWithOlderKey, type ResealOutcome, type SecretBox } from '@switchboard/service-kit';

/** A channel's credentials: each stored sealed as `<name>_sealed`. */
export const CHANNEL_CREDENTIALS = [
  'inbound_token',
  'access_token',
  'app_secret',
  'verify_token',
] as const;

/**
 * Moves every channel to the current shape and key: credentials written in clear (before they
 * were sealed) or sealed with an older key are sealed with the current key, and the inbound
 * token's digest is made again. Each write is conditional on the values it read, so two
 * replicas doing this at once, or a change made meanwhile, never lose a value.
 */
export async function resealChannels(
  collection: Collection,
  box: SecretBox,
): Promise<ResealOutcome> {
  const stale = await collection
    .find({
      $or: [
        ...CHANNEL_CREDENTIALS.map((name) => ({ [name]: { $exists: true } })),
        ...CHANNEL_CREDENTIALS.map((name) => ({ [`${name}_sealed`]: sealedWithOlderKey(box) })),
      ],
    })
    .toArray();
  const outcome: ResealOutcome = { resealed: 0, unreadable: 0 };
  for (const doc of stale) {
    const filter: Record<string, unknown> = { _id: doc._id };
    const set: Record<string, string> = {};
    const unset: Record<string, ''> = {};
    try {
      for (const name of CHANNEL_CREDENTIALS) {
        const clear: unknown = doc[name];
        const sealed: unknown = doc[`${name}_sealed`];
        filter[name] = clear === undefined ? { $exists: false } : clear;
        filter[`${name}_sealed`] = sealed === undefined ? { $exists: false } : sealed;
        const value = typeof clear === 'string' ? clear : box.open(String(sealed));
        set[`${name}_sealed`] = box.seal(value);
        if (name === 'inbound_token') set.inbound_token_digest = box.digest(value);
        if (clear !== undefined) unset[name] = '';
      }
    } catch {
      outcome.unreadable += 1;
      continue;
    }
    const update = Object.keys(unset).length > 0 ? { $set: set, $unset: unset } : { $set: set };
    const result = await collection.updateOne(filter, update);
    outcome.resealed += result.modifiedCount;
  }
  return outcome;
}
