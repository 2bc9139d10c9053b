import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Router } from 'express';
import { GetMediaQuerySchema } from '@switchboard/contracts';
import { orgContext, parseInput, serveOperation } from '@switchboard/service-kit';
import type { MediaReader } from '../../domain/media/read-inbound-media';

/** Kinds a browser may show in place; anything else is offered as a download. */
const INLINE = /^(image|audio|video)\//;

/** A file name safe in a quoted header parameter, with the full name in RFC 5987 form beside it. */
function dispositionOf(mimeType: string, filename: string | null, id: number): string {
  const kind = INLINE.test(mimeType) ? 'inline' : 'attachment';
  const name = filename ?? `media-${id}`;
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** `getMedia`: the bytes of a file a contact sent, to the organization it was sent to only. */
export function mediaRoutes(router: Router, deps: { media: MediaReader }): void {
  serveOperation(router, 'getMedia', async (req, res) => {
    const { company_id } = orgContext(req);
    const { media_id } = parseInput(GetMediaQuerySchema, req.query);
    const file = await deps.media.find(company_id, media_id);
    res.status(200);
    res.setHeader('content-type', file.mime_type);
    if (file.size !== null) res.setHeader('content-length', String(file.size));
    res.setHeader('content-disposition', dispositionOf(file.mime_type, file.filename, file.id));
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('cache-control', 'private, max-age=300');
    await pipeline(Readable.from(deps.media.bytes(file)), res);
  });
}
