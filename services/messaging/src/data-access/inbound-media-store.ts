import { Schema, type Connection } from 'mongoose';
import type { InboundMediaStatus, InboundMediaType } from '@switchboard/contracts';
import { isDuplicateKeyError, slices } from '@switchboard/service-kit';
import { op } from './mongo-helpers';

/**
 * A file a contact sent, and the job of fetching it from the provider. `_id` is the message's id
 * (`String(id)`, the local database's fast lookup): one file per message.
 */
export interface InboundMedia {
  _id: string;
  /** The message's id, which is also the file's id in `getMedia`. */
  id: number;
  company_id: number;
  contact_id: number;
  /** The contact's name when the message arrived, for the `message_received` sent once fetched. */
  contact_name: string;
  /** Sent from the business's own number: its `message_received` says so (never answered). */
  echo: boolean;
  /** The organization's number the message reached: its credentials fetch the file. */
  phone_number_id?: string;
  type: InboundMediaType;
  /** The provider's media id (`GET /{media-id}` gives its download URL). */
  provider_media_id: string;
  mime_type: string;
  filename: string | null;
  sha256: string | null;
  status: InboundMediaStatus;
  size: number | null;
  /** How many chunks hold the bytes (`media_chunks`, `_id` `<id>:<n>`). */
  chunks: number;
  attempts: number;
  /** A pending file is fetched once this time has come. */
  next_attempt_at: Date;
  /** A fetch in progress holds this lease; an expired lease lets another process take it. */
  lease_until: Date | null;
  error: string | null;
  created_at: Date;
  stored_at: Date | null;
  updated_at: Date;
}

interface MediaChunk {
  /** `<media id>:<n>`: each chunk is read by its string `_id` alone. */
  _id: string;
  media_id: number;
  n: number;
  data: Buffer;
}

/** 1 MiB per chunk: far under the 16 MB document limit, a few chunks per insert command. */
export const CHUNK_BYTES = 1024 * 1024;
const CHUNKS_PER_INSERT = 4;

const mediaSchema = new Schema<InboundMedia>(
  {
    _id: { type: String, required: true },
    id: { type: Number, required: true },
    company_id: { type: Number, required: true },
    contact_id: { type: Number, required: true },
    contact_name: { type: String, required: true },
    echo: { type: Boolean, default: false },
    phone_number_id: { type: String, required: false },
    type: { type: String, required: true },
    provider_media_id: { type: String, required: true },
    mime_type: { type: String, required: true },
    filename: { type: String, default: null },
    sha256: { type: String, default: null },
    status: { type: String, required: true },
    size: { type: Number, default: null },
    chunks: { type: Number, default: 0 },
    attempts: { type: Number, default: 0 },
    next_attempt_at: { type: Date, required: true },
    lease_until: { type: Date, default: null },
    error: { type: String, default: null },
    created_at: { type: Date, required: true },
    stored_at: { type: Date, default: null },
    updated_at: { type: Date, required: true },
  },
  { collection: 'inbound_media', versionKey: false, minimize: false },
);
// The fetch job looks for pending files that are due; the retention job for old stored ones.
mediaSchema.index({ status: 1, next_attempt_at: 1 });
mediaSchema.index({ status: 1, stored_at: 1 });

const chunkSchema = new Schema<MediaChunk>(
  {
    _id: { type: String, required: true },
    media_id: { type: Number, required: true },
    n: { type: Number, required: true },
    data: { type: Buffer, required: true },
  },
  { collection: 'media_chunks', versionKey: false },
);
chunkSchema.index({ media_id: 1 });

const chunkId = (mediaId: number, n: number) => `${mediaId}:${n}`;

export type NewInboundMedia = Pick<
  InboundMedia,
  | 'phone_number_id'
  | 'id'
  | 'company_id'
  | 'contact_id'
  | 'contact_name'
  | 'echo'
  | 'type'
  | 'provider_media_id'
  | 'mime_type'
  | 'filename'
  | 'sha256'
>;

export function createInboundMediaStore(db: Connection) {
  const Media = db.model<InboundMedia>('InboundMedia', mediaSchema);
  const Chunks = db.model<MediaChunk>('MediaChunk', chunkSchema);

  async function deleteChunks(id: number): Promise<void> {
    await Chunks.deleteMany({ media_id: id });
  }

  return {
    init: () => Promise.all([Media.init(), Chunks.init()]),

    /** Queues a file to fetch; a second call for the same message changes nothing. */
    async add(media: NewInboundMedia, now: Date): Promise<void> {
      try {
        await Media.create({
          ...media,
          _id: String(media.id),
          status: 'pending',
          size: null,
          chunks: 0,
          attempts: 0,
          next_attempt_at: now,
          lease_until: null,
          error: null,
          created_at: now,
          stored_at: null,
          updated_at: now,
        });
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
    },

    find: (id: number) => Media.findById(String(id)).lean<InboundMedia>().exec(),

    /** Pending files whose time has come, oldest first. */
    due(now: Date, limit: number): Promise<InboundMedia[]> {
      return Media.find({ status: 'pending', next_attempt_at: op({ $lte: now }) })
        .sort({ next_attempt_at: 1 })
        .limit(limit)
        .lean<InboundMedia[]>()
        .exec();
    },

    /** Takes the fetch of a pending file, unless another process holds a live lease on it. */
    claim(id: number, now: Date, leaseMs: number): Promise<InboundMedia | null> {
      return Media.findOneAndUpdate(
        {
          _id: String(id),
          status: 'pending',
          $or: [{ lease_until: null }, { lease_until: op({ $lte: now }) }],
        },
        {
          $set: { lease_until: new Date(now.getTime() + leaseMs), updated_at: now },
          $inc: { attempts: 1 },
        },
        { returnDocument: 'after' },
      )
        .lean<InboundMedia>()
        .exec();
    },

    /** Stores the bytes in chunks (any left by an interrupted attempt are replaced first). */
    async writeBytes(id: number, bytes: Buffer): Promise<number> {
      await deleteChunks(id);
      const chunks: MediaChunk[] = [];
      for (let n = 0; n * CHUNK_BYTES < bytes.length; n++) {
        const data = bytes.subarray(n * CHUNK_BYTES, (n + 1) * CHUNK_BYTES);
        chunks.push({ _id: chunkId(id, n), media_id: id, n, data });
      }
      for (const slice of slices(chunks, CHUNKS_PER_INSERT)) {
        await Chunks.insertMany(slice, { ordered: true, lean: true });
      }
      return chunks.length;
    },

    /** One chunk of a stored file, read by its `_id`. */
    async readChunk(id: number, n: number): Promise<Buffer | null> {
      const chunk = await Chunks.findById(chunkId(id, n)).lean<MediaChunk>().exec();
      if (!chunk) return null;
      const data: unknown = chunk.data;
      // The driver hands binary back as a BSON Binary; mongoose's lean read leaves it so.
      return Buffer.isBuffer(data)
        ? data
        : Buffer.from((data as { buffer: Uint8Array }).buffer ?? (data as Uint8Array));
    },

    /** Settles a fetch this process leased: the file's final status, size and chunk count. */
    async settle(
      id: number,
      outcome: Pick<InboundMedia, 'status' | 'size' | 'chunks' | 'error'> & {
        mime_type?: string;
        sha256?: string | null;
      },
      now: Date,
    ): Promise<void> {
      await Media.updateOne(
        { _id: String(id), status: 'pending' },
        {
          $set: {
            ...outcome,
            lease_until: null,
            stored_at: outcome.status === 'available' ? now : null,
            updated_at: now,
          },
        },
      );
    },

    /** A failed attempt with attempts left: tried again at `next`. */
    async retryAt(id: number, next: Date, error: string, now: Date): Promise<void> {
      await Media.updateOne(
        { _id: String(id), status: 'pending' },
        { $set: { next_attempt_at: next, lease_until: null, error, updated_at: now } },
      );
    },

    /** Stored files kept since before `before`, for the retention job. */
    storedBefore(before: Date, limit: number): Promise<InboundMedia[]> {
      return Media.find({ status: 'available', stored_at: op({ $lt: before }) })
        .limit(limit)
        .lean<InboundMedia[]>()
        .exec();
    },

    /** The retention job's removal: the bytes go, the record stays and says `expired`. */
    async expire(id: number, now: Date): Promise<void> {
      await Media.updateOne(
        { _id: String(id), status: 'available' },
        { $set: { status: 'expired', updated_at: now } },
      );
      await deleteChunks(id);
    },
  };
}

export type InboundMediaStore = ReturnType<typeof createInboundMediaStore>;
