import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/** Hints for a tool that only reads our own data. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

/** Hints for a tool that writes our own data, never destructively; a repeat may write again. */
export const WRITES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
