// Small helpers over parsed structured-field values (docs/http-message-signatures.md, "Parsing").

/** The bytes of a parsed byte sequence, or null when the value is something else. */
export function byteSequence(value: unknown): Buffer | null {
  if (
    value instanceof ArrayBuffer ||
    Object.prototype.toString.call(value) === '[object ArrayBuffer]'
  ) {
    return Buffer.from(value as ArrayBuffer);
  }
  if (ArrayBuffer.isView(value)) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return null;
}
