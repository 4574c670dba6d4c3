import { ValueTransformer } from 'typeorm';

/**
 * Paise live in bigint columns. pg returns them as strings; we map to number and refuse values a
 * JS number cannot hold exactly (2^53-1 paise is ~90 trillion rupees, far above any real amount).
 */
export const paise: ValueTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | null): number | null => {
    if (v === null || v === undefined) {
      return null;
    }
    const n = Number(v);
    if (!Number.isSafeInteger(n)) {
      throw new Error(`bigint ${v} exceeds the safe integer range`);
    }
    return n;
  },
};
