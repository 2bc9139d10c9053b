import {
  MalformedMultipartError,
  MultipartParser,
  boundaryOf,
} from '../../src/entry-points/http/multipart-parser';
import { nestFields } from '../../src/entry-points/http/multipart-form';

const BOUNDARY = '----wire7f3a';

function form(parts: { headers: string; body: string }[]): Buffer {
  const text = parts
    .map((part) => `--${BOUNDARY}\r\n${part.headers}\r\n\r\n${part.body}\r\n`)
    .join('');
  return Buffer.from(`preamble to ignore\r\n${text}--${BOUNDARY}--\r\nepilogue`);
}

/** Parses `body` cut into chunks of `size` bytes; parts as [name, isFile, content]. */
function parse(body: Buffer, size: number) {
  const parts: [string, boolean, string][] = [];
  let content: Buffer[] = [];
  let ended = false;
  const parser = new MultipartParser(BOUNDARY, {
    part: (headers) => {
      parts.push([headers.name, headers.isFile, '']);
      content = [];
    },
    data: (chunk) => content.push(Buffer.from(chunk)),
    partEnd: () => {
      parts[parts.length - 1]![2] = Buffer.concat(content).toString('utf8');
    },
    end: () => (ended = true),
  });
  for (let at = 0; at < body.length; at += size) parser.write(body.subarray(at, at + size));
  return { parts, ended, complete: parser.complete };
}

describe('the streaming multipart reader', () => {
  const body = form([
    { headers: 'Content-Disposition: form-data; name="token"', body: 'sb_secret' },
    {
      headers:
        'Content-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png',
      body: `binary\r\n--${BOUNDARY.slice(0, 5)} not a boundary\r\n`,
    },
    { headers: 'Content-Disposition: form-data; name=phone', body: '393471234567' },
  ]);

  test('when a form arrives in chunks of any size, then every part comes out whole and in order', () => {
    for (const size of [1, 2, 3, 7, 16, 64, body.length]) {
      expect(parse(body, size)).toEqual({
        parts: [
          ['token', false, 'sb_secret'],
          ['file', true, `binary\r\n--${BOUNDARY.slice(0, 5)} not a boundary\r\n`],
          ['phone', false, '393471234567'],
        ],
        ended: true,
        complete: true,
      });
    }
  });

  test('when the form stops before its closing boundary, then it is not complete', () => {
    expect(parse(body.subarray(0, body.length - 30), 5)).toMatchObject({ complete: false });
  });

  test('when text follows a boundary on its line, then the form is refused as malformed', () => {
    const broken = Buffer.from(`--${BOUNDARY}garbage\r\n\r\nx\r\n--${BOUNDARY}--`);
    expect(() => parse(broken, 4)).toThrow(MalformedMultipartError);
  });

  test('when a content type names its boundary, quoted or not, then it is read', () => {
    expect(boundaryOf(`multipart/form-data; boundary=${BOUNDARY}`)).toBe(BOUNDARY);
    expect(boundaryOf('multipart/form-data; boundary="a b"')).toBe('a b');
    expect(boundaryOf('multipart/form-data')).toBeNull();
  });
});

describe('form fields as a parsed form reads them', () => {
  test('when names carry brackets, then they nest as objects and lists', () => {
    expect(
      nestFields([
        ['phone', '1'],
        ['data[order][id]', '7'],
        ['buttons[]', 'Yes'],
        ['buttons[]', 'No'],
        ['components[0][type]', 'BODY'],
        ['components[0][text]', 'Hi'],
        ['__proto__[polluted]', 'x'],
      ]),
    ).toEqual({
      phone: '1',
      data: { order: { id: '7' } },
      buttons: ['Yes', 'No'],
      components: [{ type: 'BODY', text: 'Hi' }],
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
