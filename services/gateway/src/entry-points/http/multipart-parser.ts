const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');
/** A part's header block larger than this is not a form a client meant to send. */
const MAX_HEADER_BYTES = 16 * 1024;

export class MalformedMultipartError extends Error {
  override readonly name = 'MalformedMultipartError';
}

export interface PartHeaders {
  /** The header block as sent, without the blank line that ends it. */
  raw: Buffer;
  /** The form field's name (`Content-Disposition: form-data; name="…"`); '' when absent. */
  name: string;
  /** True for a file part (the disposition names a filename). */
  isFile: boolean;
}

export interface PartHandlers {
  part(headers: PartHeaders): void;
  data(chunk: Buffer): void;
  partEnd(): void;
  /** The closing delimiter was read: the form is complete. */
  end(): void;
}

/** The boundary of a `multipart/form-data` content type, or null when it has none. */
export function boundaryOf(contentType: string | undefined): string | null {
  const match = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType ?? '');
  return match ? (match[1] ?? match[2]!) : null;
}

function dispositionOf(raw: Buffer): { name: string; isFile: boolean } {
  const line = raw
    .toString('latin1')
    .split('\r\n')
    .find((header) => /^content-disposition\s*:/i.test(header));
  if (!line) return { name: '', isFile: false };
  const name = /;\s*name\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(line);
  const value = name ? (name[1] ?? name[2]!) : '';
  return {
    // Names travel as UTF-8 bytes; latin1 above kept every byte, this reads them as sent.
    name: Buffer.from(value.replace(/\\(.)/g, '$1'), 'latin1').toString('utf8'),
    isFile: /;\s*filename\*?\s*=/i.test(line),
  };
}

/**
 * Reads a `multipart/form-data` body as it streams (RFC 7578, RFC 2046 §5.1): parts' headers and
 * content go to `handlers` as they arrive, a part's content in as many chunks as it came in, so a
 * file is never held whole. Only a delimiter's length of bytes is kept between chunks. Preamble and
 * epilogue are ignored. A framing error throws `MalformedMultipartError`.
 */
export class MultipartParser {
  private readonly delimiter: Buffer;
  // The body is read as if it began with CRLF, so the first delimiter looks like every other one.
  private pending: Buffer = CRLF;
  private state: 'preamble' | 'delimiter' | 'headers' | 'content' | 'done' = 'preamble';

  constructor(
    boundary: string,
    private readonly handlers: PartHandlers,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  get complete(): boolean {
    return this.state === 'done';
  }

  write(chunk: Buffer): void {
    if (this.state === 'done') return;
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.step());
  }

  /** One move of the state machine; false when it needs more bytes. */
  private step(): boolean {
    const buffer = this.pending;
    switch (this.state) {
      case 'preamble': {
        const at = buffer.indexOf(this.delimiter);
        if (at === -1) {
          this.pending = buffer.subarray(Math.max(0, buffer.length - this.delimiter.length + 1));
          return false;
        }
        this.pending = buffer.subarray(at + this.delimiter.length);
        this.state = 'delimiter';
        return true;
      }
      case 'delimiter': {
        if (buffer.length < 2) return false;
        if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
          this.state = 'done';
          this.pending = Buffer.alloc(0);
          this.handlers.end();
          return false;
        }
        const lineEnd = buffer.indexOf(CRLF);
        if (lineEnd === -1) {
          if (buffer.length > 256)
            throw new MalformedMultipartError('no line end after a boundary');
          return false;
        }
        // Only transport padding (spaces, tabs) may stand between a boundary and its line end.
        if (!/^[ \t]*$/.test(buffer.subarray(0, lineEnd).toString('latin1'))) {
          throw new MalformedMultipartError('text after a boundary');
        }
        this.pending = buffer.subarray(lineEnd + 2);
        this.state = 'headers';
        return true;
      }
      case 'headers': {
        let raw: Buffer;
        if (buffer.length >= 2 && buffer[0] === 0x0d && buffer[1] === 0x0a) {
          raw = Buffer.alloc(0);
          this.pending = buffer.subarray(2);
        } else {
          const end = buffer.indexOf(HEADERS_END);
          if (end === -1) {
            if (buffer.length > MAX_HEADER_BYTES) {
              throw new MalformedMultipartError('a part header block is too large');
            }
            return false;
          }
          raw = buffer.subarray(0, end);
          this.pending = buffer.subarray(end + HEADERS_END.length);
        }
        this.state = 'content';
        this.handlers.part({ raw, ...dispositionOf(raw) });
        return true;
      }
      case 'content': {
        const at = buffer.indexOf(this.delimiter);
        if (at === -1) {
          const safe = buffer.length - this.delimiter.length + 1;
          if (safe > 0) {
            this.handlers.data(buffer.subarray(0, safe));
            this.pending = buffer.subarray(safe);
          }
          return false;
        }
        if (at > 0) this.handlers.data(buffer.subarray(0, at));
        this.handlers.partEnd();
        this.pending = buffer.subarray(at + this.delimiter.length);
        this.state = 'delimiter';
        return true;
      }
      case 'done':
        return false;
    }
  }
}
