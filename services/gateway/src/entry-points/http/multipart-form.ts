import { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import { ALL_OPERATIONS } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import { MalformedMultipartError, MultipartParser, boundaryOf } from './multipart-parser';

/**
 * A form's parts before its token are held in memory while the token is awaited; past this the
 * token must come earlier in the form (or in the header or query). A form without a file is read
 * whole, up to the same size as a JSON body.
 */
export const FORM_HOLD_BYTES = 1024 * 1024;
const MAX_TOKEN_BYTES = 4096;
const MAX_FORM_FIELDS = 1000;

/** Paths (lowercase, as matched) and methods of the operations that take a file. */
const FILE_OPERATIONS = new Set(
  ALL_OPERATIONS.filter((operation) => operation.fileField).map(
    (operation) => `${operation.method} ${operation.path.toLowerCase()}`,
  ),
);

type FormToken = { token: string | undefined } | { late: true };

const streamedForms = new WeakMap<Request, TokenlessForm>();

const malformed = () =>
  new AppError('malformed_json', 'Request body is not valid multipart/form-data');

/**
 * Makes a `multipart/form-data` request readable like any other before its token is checked.
 * A form of an operation that takes a file streams on to its owner without its `token` part
 * (`res.locals.forwardBody`, which the proxy sends in place of the request), the token read on
 * the way (`formTokenOf`); any other form is read whole
 * into `req.body`, which the proxy re-sends as JSON without the token, as it does a parsed form.
 */
export async function readMultipartForm(req: Request, res: Response): Promise<void> {
  if (!req.is('multipart/form-data') || streamedForms.has(req)) return;
  const boundary = boundaryOf(req.header('content-type'));
  if (!boundary) throw malformed();
  if (FILE_OPERATIONS.has(`${req.method.toLowerCase()} ${req.path.toLowerCase()}`)) {
    const form = new TokenlessForm(req, boundary);
    streamedForms.set(req, form);
    res.locals.forwardBody = form;
    // Answered without the form being sent on (a wrong token, an early refusal): the rest of
    // the upload is read and dropped, so the connection can serve its next request.
    res.once('finish', () => form.discard());
    return;
  }
  req.body = await readFields(req, boundary);
}

/** The `token` field of a streamed form, once read; undefined when the form has none. */
export async function formTokenOf(req: Request): Promise<string | undefined> {
  const form = streamedForms.get(req);
  if (!form) return undefined;
  const found = await form.token;
  if ('late' in found) {
    throw new AppError(
      'validation_failed',
      `token: not found in the form's first ${FORM_HOLD_BYTES / 1024 / 1024} MiB; put the ` +
        'token field before the file, or send it as Authorization: Bearer or the token query parameter',
    );
  }
  return found.token;
}

/**
 * The form as it streams, its `token` parts left out and every other byte of every part kept.
 * Parts are held (up to FORM_HOLD_BYTES) until the proxy reads them, so the token can be found
 * first; from then on the request is read only as fast as the owner takes it.
 */
class TokenlessForm extends Readable {
  readonly token: Promise<FormToken>;
  private settle!: (token: FormToken) => void;
  private settled = false;
  private ended = false;
  private wrote = false;
  private inToken = false;
  private tokenBytes: Buffer[] = [];
  private tokenSize = 0;
  private readonly parser: MultipartParser;

  constructor(
    private readonly source: Request,
    private readonly boundary: string,
  ) {
    super();
    this.token = new Promise((resolve) => (this.settle = resolve));
    this.parser = new MultipartParser(boundary, {
      part: (headers) => {
        this.inToken = headers.name === 'token';
        if (this.inToken) {
          this.tokenBytes = [];
          this.tokenSize = headers.isFile ? MAX_TOKEN_BYTES + 1 : 0;
          return;
        }
        const opening = `${this.wrote ? '\r\n' : ''}--${this.boundary}\r\n`;
        this.wrote = true;
        this.push(
          Buffer.concat([
            Buffer.from(opening),
            headers.raw,
            Buffer.from(headers.raw.length > 0 ? '\r\n\r\n' : '\r\n'),
          ]),
        );
      },
      data: (chunk) => {
        if (!this.inToken) {
          this.push(chunk);
          return;
        }
        this.tokenSize += chunk.length;
        if (this.tokenSize <= MAX_TOKEN_BYTES) this.tokenBytes.push(chunk);
      },
      partEnd: () => {
        if (!this.inToken) return;
        this.inToken = false;
        const text = Buffer.concat(this.tokenBytes).toString('utf8');
        if (this.tokenSize <= MAX_TOKEN_BYTES && text !== '') this.decide({ token: text });
      },
      end: () => {
        this.push(Buffer.from(`${this.wrote ? '\r\n' : ''}--${this.boundary}--\r\n`));
        this.finish();
      },
    });
    source.on('data', (chunk: Buffer) => this.readChunk(chunk));
    source.once('end', () => this.finish());
    source.once('error', (error) => this.fail(error));
    source.once('close', () => {
      if (!source.complete) this.fail(new Error('the client closed the request early'));
    });
  }

  private readChunk(chunk: Buffer): void {
    try {
      this.parser.write(chunk);
    } catch (error) {
      if (!(error instanceof MalformedMultipartError)) throw error;
      // Ends the form short of its closing delimiter: the owner refuses it as malformed.
      this.source.removeAllListeners('data');
      this.source.resume();
      this.finish();
      return;
    }
    if (!this.ended && this.readableLength >= FORM_HOLD_BYTES) {
      this.source.pause();
      this.decide({ late: true });
    }
  }

  override _read(): void {
    if (!this.ended) this.source.resume();
  }

  discard(): void {
    this.source.removeAllListeners('data');
    this.source.resume();
    this.finish();
  }

  private decide(token: FormToken): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(token);
  }

  /** The request ended: what was read goes on (a form cut short stays without its ending). */
  private finish(): void {
    this.decide({ token: undefined });
    if (this.ended || this.destroyed) return;
    this.ended = true;
    this.push(null);
  }

  private fail(error: Error): void {
    this.decide({ token: undefined });
    if (!this.destroyed) this.destroy(error);
  }
}

/** A form without files, read whole into fields; brackets nest as a parsed form's do. */
async function readFields(req: Request, boundary: string): Promise<Record<string, unknown>> {
  const fields: [string, string][] = [];
  let size = 0;
  let current: { name: string; chunks: Buffer[] } | undefined;
  const parser = new MultipartParser(boundary, {
    part: (headers) => {
      if (headers.isFile) {
        throw new AppError(
          'validation_failed',
          `${headers.name || 'file'}: this operation takes no file`,
        );
      }
      if (fields.length >= MAX_FORM_FIELDS) {
        throw new AppError('validation_failed', `body: at most ${MAX_FORM_FIELDS} form fields`);
      }
      current = { name: headers.name, chunks: [] };
    },
    data: (chunk) => current?.chunks.push(chunk),
    partEnd: () => {
      if (current && current.name !== '') {
        fields.push([current.name, Buffer.concat(current.chunks).toString('utf8')]);
      }
      current = undefined;
    },
    end: () => undefined,
  });
  // Read by events, not by async iteration: a refusal must leave the request open for its
  // answer, not destroy the socket first.
  await new Promise<void>((resolve, reject) => {
    const refuse = (error: unknown) => {
      // The rest of the body is dropped and the connection closed after the answer, so the
      // client's next request never lands in the middle of this one's unread bytes.
      req.removeListener('data', take);
      req.resume();
      req.res?.setHeader('connection', 'close');
      reject(error instanceof MalformedMultipartError ? malformed() : error);
    };
    const take = (chunk: Buffer) => {
      size += chunk.length;
      if (size > FORM_HOLD_BYTES) {
        refuse(new AppError('payload_too_large', 'Request body is too large'));
        return;
      }
      try {
        parser.write(chunk);
      } catch (error) {
        refuse(error);
      }
    };
    req.on('data', take);
    req.once('end', resolve);
    req.once('error', reject);
    req.once('close', () => {
      if (!req.complete) reject(new Error('the client closed the request early'));
    });
  });
  if (!parser.complete) throw malformed();
  return nestFields(fields);
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_ARRAY_INDEX = 100;

/**
 * Form field names as a parsed form reads them: `data[order][id]` nests, `buttons[]` appends,
 * `components[0][type]` indexes a list. A name that is not of that shape stays as it is.
 */
export function nestFields(fields: [string, string][]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [name, value] of fields) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
    const keys = match
      ? [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((key) => key[1]!)]
      : [name];
    if (keys.length > 32 || keys.some((key) => UNSAFE_KEYS.has(key))) continue;
    setPath(root, keys, value);
  }
  return compactLists(root) as Record<string, unknown>;
}

const isListKey = (key: string | undefined) =>
  key === '' || (key !== undefined && /^[0-9]{1,3}$/.test(key) && Number(key) <= MAX_ARRAY_INDEX);

function setPath(root: Record<string, unknown>, keys: string[], value: string): void {
  let node: Record<string, unknown> | unknown[] = root;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const last = index === keys.length - 1;
    if (Array.isArray(node) && !isListKey(key)) return;
    const slot: string | number = Array.isArray(node)
      ? key === ''
        ? node.length
        : Number(key)
      : key;
    const container = node as Record<string | number, unknown>;
    if (last) {
      container[slot] = value;
      return;
    }
    const existing = container[slot];
    if (typeof existing !== 'object' || existing === null) {
      container[slot] = isListKey(keys[index + 1]) ? [] : {};
    }
    node = container[slot] as Record<string, unknown> | unknown[];
  }
}

/** Lists indexed with gaps (`a[0]`, `a[5]`) close up, as a parsed form's do. */
function compactLists(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== undefined).map(compactLists);
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      (value as Record<string, unknown>)[key] = compactLists(item);
    }
  }
  return value;
}
