import { Injectable } from '@nestjs/common';
import { z } from 'zod';

import {
  base64LengthOf,
  checkDocumentType,
  decodeBase64Document,
  DOCUMENT_MAX_BYTES,
} from '../../documents/document-content';
import { fetchDocumentFromUrl } from '../../documents/document-fetch';
import { ForexService } from '../../forex/forex.service';
import { McpIdempotency } from '../mcp-idempotency';
import { McpTool, McpToolContext } from '../mcp-tool';
import { forexRestTwin } from './forex-rest-twin';
import {
  CONTENT_TYPE,
  DOCUMENT,
  DOCUMENT_KIND,
  documentView,
  FILE_ID,
  forexToolError,
  IDEMPOTENCY_KEY,
} from './forex-tool-schemas';
import { WRITES } from './tool-annotations';

/** Longest URL accepted (the usual browser limit). */
export const DOCUMENT_URL_MAX_LENGTH = 2048;

const input = z
  .strictObject({
    file_id: FILE_ID,
    kind: DOCUMENT_KIND,
    content_type: CONTENT_TYPE,
    content_base64: z
      .string()
      .min(1)
      .max(base64LengthOf(DOCUMENT_MAX_BYTES))
      .optional()
      .describe(
        `The document as base64 (standard alphabet, one line, padding optional), at most ${DOCUMENT_MAX_BYTES} bytes decoded. Give this or url, not both.`,
      ),
    url: z
      .url({ protocol: /^https$/, error: 'must be an https URL' })
      .max(DOCUMENT_URL_MAX_LENGTH)
      .optional()
      .describe(
        `A public https URL (default port, no credentials) we fetch the document from: at most ${DOCUMENT_MAX_BYTES} bytes, 3 redirects, 15 s; private, loopback and cloud-metadata addresses are refused. Give this or content_base64, not both.`,
      ),
    filename: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Shown to the dealer (≤ 200 characters)'),
    idempotency_key: IDEMPOTENCY_KEY.optional(),
  })
  .superRefine((v, ctx) => {
    const given = Number(v.content_base64 !== undefined) + Number(v.url !== undefined);
    if (given !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [given === 0 ? 'content_base64' : 'url'],
        message:
          given === 0
            ? 'give the document as content_base64 or as url'
            : 'give content_base64 or url, not both',
      });
    }
  });

const output = DOCUMENT.extend({
  replayed: z.boolean().describe('True when an earlier call with this idempotency_key stored it'),
});

type Input = z.output<typeof input>;
type Output = z.output<typeof output>;

/**
 * Adds a document to a forex file: same rules and records as POST /v1/pay/forex/orders/{id}/documents
 * (type by magic bytes, 5,000,000 bytes, Aadhaar refused, sealed at rest), plus, on MCP only, a
 * public https URL fetched with safeFetch (fetchDocumentFromUrl). The URL is fetched before the
 * transaction opens, so no database connection waits on the network; a retry whose key already
 * has a result replays it without fetching again.
 */
@Injectable()
export class ForexUploadDocumentTool implements McpTool<typeof input, typeof output> {
  readonly name = 'upload_document';
  readonly title = 'Upload a document to a forex file';
  readonly description =
    'Add a document (passport, visa, ticket, letters, form_a2, other) to your forex file while it is draft, quoted or returned: a PDF, JPEG or PNG whose bytes match content_type, at most 5,000,000 bytes, given as content_base64 or as a public https url (exactly one). Stored encrypted; its SHA-256 goes on the receipt. Aadhaar is never accepted.';
  readonly inputSchema = input;
  readonly outputSchema = output;
  readonly annotations = { ...WRITES, openWorldHint: true };

  constructor(
    private readonly forex: ForexService,
    private readonly idempotency: McpIdempotency,
  ) {}

  async call(args: Input, ctx: McpToolContext): Promise<Output> {
    const path = `/v1/pay/forex/orders/${args.file_id}/documents`;
    // The REST body for base64 (so records are shared with REST); the URL as sent otherwise.
    const body = {
      kind: args.kind,
      content_type: args.content_type,
      ...(args.url !== undefined ? { url: args.url } : { content_base64: args.content_base64 }),
      ...(args.filename !== undefined ? { filename: args.filename } : {}),
    };
    try {
      let bytes: Buffer | null = null;
      if (args.url !== undefined) {
        if (!(await this.idempotency.hasRecord(ctx.caller, args.idempotency_key, path))) {
          bytes = await this.fetch(args.url, args.content_type);
        }
      } else {
        bytes = decodeBase64Document(
          args.content_base64 ?? '',
          DOCUMENT_MAX_BYTES,
          '$.content_base64',
        );
      }
      const { value, replayed } = await this.idempotency.run(
        ctx,
        args.idempotency_key,
        forexRestTwin(path, body, 'upload'),
        async () => {
          if (bytes === null) {
            // The record expired between the look and the lock: fetch after all.
            bytes = await this.fetch(args.url ?? '', args.content_type);
          }
          return this.forex.uploadDocument(ctx.caller, args.file_id, {
            kind: args.kind,
            content_type: args.content_type,
            bytes,
            filename: args.filename,
          });
        },
      );
      return { ...documentView(value), replayed };
    } catch (err) {
      throw forexToolError(err);
    }
  }

  /** The URL's bytes, of the declared type (a mismatch names the url the bytes came from). */
  private async fetch(url: string, contentType: string): Promise<Buffer> {
    const { bytes } = await fetchDocumentFromUrl(url, { param: '$.url' });
    checkDocumentType(bytes, contentType, '$.url');
    return bytes;
  }
}
