import { AppError } from '../common/errors/app-error';

/**
 * Refusals of a document (docs/documents.md "Documents and outbound fetches"). All 4xx: the bytes came from
 * the caller. `param` is the caller's JSONPath of the field that held the document, when given.
 */
export const documentErrors = {
  notBase64: (reason: string, param?: string) =>
    new AppError(
      400,
      'invalid_request',
      'document_not_base64',
      `The document is not valid base64: ${reason}`,
      param,
    ),
  tooLarge: (maxBytes: number, param?: string) =>
    new AppError(
      413,
      'invalid_request',
      'document_too_large',
      `The document exceeds ${maxBytes} bytes (decoded)`,
      param,
    ),
  empty: (param?: string) =>
    new AppError(400, 'invalid_request', 'document_empty', 'The document is empty', param),
  typeUnsupported: (param?: string) =>
    new AppError(
      415,
      'invalid_request',
      'document_type_unsupported',
      'The document must be a PDF, JPEG or PNG file (recognised by its first bytes)',
      param,
    ),
  typeMismatch: (declared: string, actual: string, param?: string) =>
    new AppError(
      415,
      'invalid_request',
      'document_type_mismatch',
      `The document was declared ${declared} but its bytes are ${actual}`,
      param,
    ),
};
