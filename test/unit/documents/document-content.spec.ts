import { AppError } from '../../../src/common/errors/app-error';
import {
  base64LengthOf,
  checkDocumentType,
  decodeBase64Document,
  DOCUMENT_MAX_BYTES,
  mediaTypeOf,
  sniffDocumentType,
} from '../../../src/documents/document-content';

const PDF = Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj', 'latin1');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]);

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a refusal');
}

describe('sniffDocumentType', () => {
  it.each([
    ['a PDF', PDF, 'application/pdf'],
    ['a JPEG', JPEG, 'image/jpeg'],
    ['a PNG', PNG, 'image/png'],
    ['the bare PDF header', Buffer.from('%PDF-'), 'application/pdf'],
    ['the bare JPEG marker', Buffer.from([0xff, 0xd8, 0xff]), 'image/jpeg'],
    ['the bare PNG signature', PNG.subarray(0, 8), 'image/png'],
  ])('recognises %s by its magic bytes', (_name, bytes, type) => {
    expect(sniffDocumentType(bytes)).toBe(type);
    expect(sniffDocumentType(new Uint8Array(bytes))).toBe(type);
  });

  it.each([
    ['empty', Buffer.alloc(0)],
    ['a truncated PDF header', Buffer.from('%PDF')],
    ['a truncated JPEG marker', Buffer.from([0xff, 0xd8])],
    ['a truncated PNG signature', PNG.subarray(0, 7)],
    [
      'a PNG signature with one byte wrong',
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0b]),
    ],
    ['a PDF header not at offset 0', Buffer.from(' %PDF-1.7')],
    ['lower-case pdf', Buffer.from('%pdf-1.7')],
    ['a GIF', Buffer.from('GIF89a')],
    ['a ZIP (docx)', Buffer.from([0x50, 0x4b, 0x03, 0x04])],
    ['HTML', Buffer.from('<!doctype html>')],
    ['base64 text of a PDF (not decoded)', Buffer.from(PDF.toString('base64'))],
  ])('returns null for %s', (_name, bytes) => {
    expect(sniffDocumentType(bytes)).toBeNull();
  });
});

describe('checkDocumentType', () => {
  it('accepts bytes matching the declared type, parameters and case aside', () => {
    expect(checkDocumentType(PDF, 'application/pdf')).toBe('application/pdf');
    expect(checkDocumentType(PNG, 'Image/PNG; name="scan.png"')).toBe('image/png');
    expect(checkDocumentType(JPEG, 'image/jpg')).toBe('image/jpeg');
    expect(checkDocumentType(JPEG, null)).toBe('image/jpeg');
  });

  it.each([
    [PDF, 'image/png', 'application/pdf'],
    [PNG, 'image/jpeg', 'image/png'],
    [JPEG, 'application/pdf', 'image/jpeg'],
    [PDF, 'text/plain', 'application/pdf'],
  ])('refuses a mismatch with 415 document_type_mismatch', (bytes, declared, actual) => {
    const err = errorOf(() => checkDocumentType(bytes, declared, '$.content_type'));
    expect(err).toMatchObject({
      status: 415,
      code: 'document_type_mismatch',
      param: '$.content_type',
    });
    expect(err.message).toContain(actual);
  });

  it('refuses unknown bytes with 415 document_type_unsupported, whatever was declared', () => {
    for (const declared of ['application/pdf', null]) {
      expect(errorOf(() => checkDocumentType(Buffer.from('GIF89a'), declared))).toMatchObject({
        status: 415,
        code: 'document_type_unsupported',
      });
    }
  });

  it('reads the media type of a Content-Type', () => {
    expect(mediaTypeOf('Application/PDF ; charset=binary')).toBe('application/pdf');
    expect(mediaTypeOf('')).toBeNull();
    expect(mediaTypeOf(undefined)).toBeNull();
  });
});

describe('decodeBase64Document', () => {
  it('decodes standard base64, padded or not', () => {
    expect(decodeBase64Document(PDF.toString('base64'))).toEqual(PDF);
    for (const bytes of [Buffer.from('a'), Buffer.from('ab'), Buffer.from('abc'), PNG]) {
      const padded = bytes.toString('base64');
      expect(decodeBase64Document(padded)).toEqual(bytes);
      expect(decodeBase64Document(padded.replace(/=+$/, ''))).toEqual(bytes);
    }
    expect(decodeBase64Document('+/+/')).toEqual(Buffer.from([0xfb, 0xff, 0xbf]));
  });

  it.each([
    [
      'whitespace',
      `${PDF.toString('base64').slice(0, 8)} ${PDF.toString('base64').slice(8)}`,
      /whitespace/,
    ],
    [
      'a line break',
      `${PDF.toString('base64').slice(0, 8)}\n${PDF.toString('base64').slice(8)}`,
      /whitespace/,
    ],
    ['a trailing newline', `${PDF.toString('base64')}\n`, /whitespace/],
    ['the URL-safe alphabet', '-_-_', /standard alphabet/],
    ['a data: URL', `data:application/pdf;base64,${PDF.toString('base64')}`, /data: URL/],
    ['other characters', 'QUJD*', /only A-Z/],
    ['padding in the middle', 'QQ==QUJD', /only A-Z/],
    ['too much padding', 'QUJD====', /only A-Z|padding/],
    ['a length of 4n + 1', 'QUJDR', /length/],
    ['padding where none is due', 'QUJD=', /length|padding/],
    ['one = where two are due', 'QQ=', /length|padding/],
    ['non-zero padding bits', 'QR==', /padding bits/],
    ['non-zero padding bits (two bytes)', 'QUF=', /padding bits/],
  ])('refuses %s with 400 document_not_base64', (_name, text, message) => {
    const err = errorOf(() => decodeBase64Document(text, DOCUMENT_MAX_BYTES, '$.content_base64'));
    expect(err).toMatchObject({
      status: 400,
      code: 'document_not_base64',
      param: '$.content_base64',
    });
    expect(err.message).toMatch(message);
  });

  it('refuses an empty document with 400 document_empty', () => {
    expect(errorOf(() => decodeBase64Document(''))).toMatchObject({
      status: 400,
      code: 'document_empty',
    });
    expect(errorOf(() => decodeBase64Document('=='))).toMatchObject({ status: 400 });
  });

  it('takes exactly maxBytes decoded bytes and refuses one more, for every padding', () => {
    for (const max of [1, 2, 3, 4, 5, 6, 100]) {
      const fits = Buffer.alloc(max, 0x41);
      expect(decodeBase64Document(fits.toString('base64'), max)).toEqual(fits);
      expect(decodeBase64Document(fits.toString('base64').replace(/=+$/, ''), max)).toEqual(fits);
      const over = Buffer.alloc(max + 1, 0x41).toString('base64');
      for (const text of [over, over.replace(/=+$/, '')]) {
        expect(errorOf(() => decodeBase64Document(text, max))).toMatchObject({
          status: 413,
          code: 'document_too_large',
        });
      }
    }
  });

  it('refuses too large before scanning or decoding: the size comes from the length alone', () => {
    // Not base64 at all, but 413 first: nothing of it was looked at.
    const text = '*'.repeat(base64LengthOf(11));
    expect(errorOf(() => decodeBase64Document(text, 10))).toMatchObject({ status: 413 });
    const decode = jest.spyOn(Buffer, 'from');
    try {
      errorOf(() => decodeBase64Document('A'.repeat(base64LengthOf(DOCUMENT_MAX_BYTES + 1))));
      expect(decode).not.toHaveBeenCalled();
    } finally {
      decode.mockRestore();
    }
  });

  it('accepts exactly 5,000,000 decoded bytes (MB = 10^6) and refuses 5,000,001', () => {
    expect(DOCUMENT_MAX_BYTES).toBe(5_000_000);
    // 5,000,000 = 3 · 1,666,666 + 2: 6,666,667 characters and one '='.
    const max = decodeBase64Document(`${'A'.repeat(6_666_667)}=`);
    expect(max.length).toBe(5_000_000);
    expect(decodeBase64Document('A'.repeat(6_666_667)).length).toBe(5_000_000);
    // 5,000,001 = 3 · 1,666,667: 6,666,668 characters, no padding. Refused without decoding.
    expect(errorOf(() => decodeBase64Document('A'.repeat(6_666_668)))).toMatchObject({
      status: 413,
      code: 'document_too_large',
    });
    expect(base64LengthOf(5_000_000)).toBe(6_666_668);
  });
});
