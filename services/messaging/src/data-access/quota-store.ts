import { Schema, type Connection } from 'mongoose';
import { createIfMissing, op } from './mongo-helpers';
import { createWriteBatcher } from './write-batcher';

/** Messages an organization sent in one calendar month (UTC): `_id` `<company_id>:<YYYY-MM>`. */
interface MessageQuota {
  _id: string;
  company_id: number;
  month: string;
  used: number;
  /** Named reservations still held, by name: their size (campaign starts). */
  reservations?: Record<string, number>;
  /**
   * Places of one message each whose message is not stored yet, by hold name: when each was
   * taken (ms). A send's own hold is `message:<id>`; a producer's (an automated answer) is
   * taken over by the command that names it. Whatever a crash leaves here is given back.
   */
  holds?: Record<string, number>;
}

const quotaSchema = new Schema<MessageQuota>(
  {
    _id: { type: String, required: true },
    company_id: { type: Number, required: true },
    month: { type: String, required: true },
    used: { type: Number, required: true },
    reservations: { type: Schema.Types.Mixed, default: undefined },
    holds: { type: Schema.Types.Mixed, default: undefined },
  },
  { collection: 'message_quotas', versionKey: false },
);
// The recovery job reads one month's counters at a time.
quotaSchema.index({ month: 1 });

const quotaId = (company_id: number, month: string) => `${company_id}:${month}`;

/** The hold of a send's own place, until its message is stored. */
export const messageHold = (messageId: number) => `message:${messageId}`;
/** The message a hold is for, when it is a send's own (not a producer's). */
export function messageIdOfHold(name: string): number | undefined {
  const match = /^message:(\d{1,15})$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

export interface HeldPlace {
  company_id: number;
  month: string;
  name: string;
  heldAt: Date;
}

interface HoldRequest {
  company_id: number;
  month: string;
  limit: number | null;
  name: string;
  now: Date;
  granted?: boolean;
}

export function createQuotaStore(db: Connection) {
  const Quotas = db.model<MessageQuota>('MessageQuota', quotaSchema);

  /**
   * Holds of concurrent sends, one `bulkWrite` per month's record: each is the same conditional
   * `$inc` as `hold`'s, applied one after the other, so none is granted past the limit. When not
   * all matched, the record is read once to see whose names it holds; the others are refused here
   * and go through `hold` alone (which also creates the month's record).
   */
  const holdBatches = createWriteBatcher<HoldRequest>(async (requests) => {
    const byRecord = new Map<string, HoldRequest[]>();
    for (const request of requests) {
      const key = `${quotaId(request.company_id, request.month)}:${request.limit}`;
      byRecord.set(key, [...(byRecord.get(key) ?? []), request]);
    }
    await Promise.all(
      [...byRecord.values()].map(async (group) => {
        const { company_id, month, limit } = group[0]!;
        const _id = quotaId(company_id, month);
        const result = await Quotas.bulkWrite(
          group.map(({ name, now }) => ({
            updateOne: {
              filter: {
                _id,
                [`holds.${name}`]: op({ $exists: false }),
                ...(limit === null ? {} : { used: op({ $lte: limit - 1 }) }),
              },
              update: { $inc: { used: 1 }, $set: { [`holds.${name}`]: now.getTime() } },
            },
          })),
          { ordered: true },
        );
        if (result.matchedCount === group.length) {
          for (const request of group) request.granted = true;
          return;
        }
        const quota = await Quotas.findById(_id).lean<MessageQuota>().exec();
        for (const request of group) request.granted = quota?.holds?.[request.name] !== undefined;
      }),
    );
  });

  /**
   * One conditional update of the month's record, creating the record first when the update
   * missed. The miss is not taken as "does not fit" at once: parallel first sends of a month all
   * miss before any of them has created the record, and then each must try again.
   */
  async function takeCreatingMonth(
    _id: string,
    company_id: number,
    month: string,
    filter: Record<string, unknown>,
    update: Record<string, unknown>,
  ): Promise<boolean> {
    if ((await Quotas.updateOne(filter, update)).matchedCount === 1) return true;
    await createIfMissing(Quotas, _id, { company_id, month, used: 0 });
    return (await Quotas.updateOne(filter, update)).matchedCount === 1;
  }

  return {
    /**
     * Takes `count` places at once, atomically, only if all fit under `limit` (`null`: no limit,
     * the places are still counted). False, having changed nothing, when they do not fit.
     */
    async reserve(
      company_id: number,
      month: string,
      limit: number | null,
      count = 1,
      reservationId?: string,
    ): Promise<boolean> {
      if (limit !== null && count > limit) return false;
      const _id = quotaId(company_id, month);
      const named = reservationId ? `reservations.${reservationId}` : undefined;
      const filter = {
        _id,
        ...(limit === null ? {} : { used: op({ $lte: limit - count }) }),
        ...(named ? { [named]: op({ $exists: false }) } : {}),
      };
      const update = { $inc: { used: count }, ...(named ? { $set: { [named]: count } } : {}) };
      if (await takeCreatingMonth(_id, company_id, month, filter, update)) return true;
      // Asked again for a reservation already held: it stands, nothing more is taken.
      return named !== undefined && (await Quotas.exists({ _id, [named]: count })) !== null;
    },

    /** Gives a named reservation back whole, once; 0 when it is not held. */
    async releaseReservation(
      company_id: number,
      month: string,
      reservationId: string,
    ): Promise<number> {
      const _id = quotaId(company_id, month);
      const named = `reservations.${reservationId}`;
      const quota = await Quotas.findById(_id).lean<MessageQuota>().exec();
      const count = quota?.reservations?.[reservationId];
      if (!count) return 0;
      const result = await Quotas.updateOne(
        { _id, [named]: count, used: op({ $gte: count }) },
        { $inc: { used: -count }, $unset: { [named]: '' } },
      );
      return result.modifiedCount === 1 ? count : 0;
    },

    /** Gives places back (a send the provider refused, a reservation not used). */
    async release(company_id: number, month: string, count = 1): Promise<number> {
      const result = await Quotas.updateOne(
        { _id: quotaId(company_id, month), used: op({ $gte: count }) },
        { $inc: { used: -count } },
      );
      return result.modifiedCount === 1 ? count : 0;
    },

    /**
     * Takes one place under hold `name`, within `limit` (as `reserve`); with `takeOver`, moves
     * the place a producer holds under that name to `name` instead, in one write, so the producer's
     * hold can never be given back once a message has it. The month `name` holds a place in, or
     * null when none fits.
     */
    async hold(
      company_id: number,
      month: string,
      limit: number | null,
      name: string,
      now: Date,
      takeOver?: { name: string; month: string },
    ): Promise<string | null> {
      const held = `holds.${name}`;
      if (takeOver) {
        const from = `holds.${takeOver.name}`;
        const moved = await Quotas.updateOne(
          { _id: quotaId(company_id, takeOver.month), [from]: op({ $exists: true }) },
          { $unset: { [from]: '' }, $set: { [held]: now.getTime() } },
        );
        if (moved.matchedCount === 1) return takeOver.month;
      }
      const _id = quotaId(company_id, month);
      const filter = {
        _id,
        [held]: op({ $exists: false }),
        ...(limit === null ? {} : { used: op({ $lte: limit - 1 }) }),
      };
      const update = { $inc: { used: 1 }, $set: { [held]: now.getTime() } };
      if (await takeCreatingMonth(_id, company_id, month, filter, update)) return month;
      // Asked again under the same name: the place stands, nothing more is taken.
      const stands = await Quotas.exists({ _id, [held]: op({ $exists: true }) });
      return stands ? month : null;
    },

    /**
     * As `hold` without a producer's hold to take over, written with other sends' holds (one
     * command for all that fit, whatever their number).
     */
    async holdWithOthers(
      company_id: number,
      month: string,
      limit: number | null,
      name: string,
      now: Date,
    ): Promise<string | null> {
      const request: HoldRequest = { company_id, month, limit, name, now };
      await holdBatches.add(request);
      if (request.granted) return month;
      return this.hold(company_id, month, limit, name, now);
    },

    /** The hold's message is stored and holds the place from now on: only the name goes. */
    async settleHold(company_id: number, month: string, name: string): Promise<void> {
      const held = `holds.${name}`;
      await Quotas.updateOne(
        { _id: quotaId(company_id, month), [held]: op({ $exists: true }) },
        { $unset: { [held]: '' } },
      );
    },

    /** Several settled holds of one month's record lose their names in one write. */
    async settleHolds(company_id: number, month: string, names: string[]): Promise<void> {
      if (names.length === 0) return;
      await Quotas.updateOne(
        { _id: quotaId(company_id, month) },
        { $unset: Object.fromEntries(names.map((name) => [`holds.${name}`, ''])) },
      );
    },

    /** Gives a hold's place back, once; false when it is not held (settled or given back). */
    async giveBackHold(company_id: number, month: string, name: string): Promise<boolean> {
      const held = `holds.${name}`;
      const result = await Quotas.updateOne(
        { _id: quotaId(company_id, month), [held]: op({ $exists: true }), used: op({ $gte: 1 }) },
        { $inc: { used: -1 }, $unset: { [held]: '' } },
      );
      return result.modifiedCount === 1;
    },

    /** Holds of one month taken before `before`: what a crash may have left. */
    async holdsBefore(month: string, before: Date): Promise<HeldPlace[]> {
      const quotas = await Quotas.find({ month }).lean<MessageQuota[]>().exec();
      return quotas.flatMap((quota) =>
        Object.entries(quota.holds ?? {})
          .filter(([, at]) => at < before.getTime())
          .map(([name, at]) => ({
            company_id: quota.company_id,
            month,
            name,
            heldAt: new Date(at),
          })),
      );
    },

    async used(company_id: number, month: string): Promise<number> {
      const quota = await Quotas.findById(quotaId(company_id, month)).lean<MessageQuota>().exec();
      return quota?.used ?? 0;
    },
  };
}

export type QuotaStore = ReturnType<typeof createQuotaStore>;
