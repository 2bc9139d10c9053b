import { once } from 'node:events';
import type { Response } from 'express';
import { wholeListMeta, type Contact } from '@switchboard/contracts';
import { requestLogger } from '@switchboard/service-kit';

/** Resolves when the socket can take more, or is gone. */
async function drained(res: Response): Promise<void> {
  if (res.destroyed) return;
  const controller = new AbortController();
  await Promise.race([
    once(res, 'drain', { signal: controller.signal }),
    once(res, 'close', { signal: controller.signal }),
  ]).finally(() => controller.abort());
}

/**
 * Writes `{"status":"success","contacts":[…],"meta":{…}}` batch by batch, so that listing 100,000 contacts
 * holds one batch in memory and respects the client's pace. The first batch is read before
 * anything is written, so that an early failure still answers the error envelope; a failure
 * later can only cut the response short, which the client sees as invalid JSON.
 */
export async function sendContactStream(
  res: Response,
  batches: AsyncIterable<Contact[]>,
): Promise<void> {
  const iterator = batches[Symbol.asyncIterator]();
  let next = await iterator.next();
  res.status(200).type('application/json');
  res.write('{"status":"success","contacts":[');
  let first = true;
  let total = 0;
  try {
    while (!next.done) {
      total += next.value.length;
      if (next.value.length > 0) {
        const json = next.value.map((contact) => JSON.stringify(contact)).join(',');
        const more = res.write(first ? json : `,${json}`);
        first = false;
        if (!more) await drained(res);
      }
      if (res.destroyed) break;
      next = await iterator.next();
    }
  } catch (error) {
    requestLogger(res).error({ err: error }, 'contact listing failed after it started');
    res.destroy(error as Error);
    return;
  } finally {
    await iterator.return?.();
  }
  // The whole list is one page; `meta` comes last because the count is known only at the end.
  if (!res.destroyed) res.end(`],"meta":${JSON.stringify(wholeListMeta(total))}}`);
}
