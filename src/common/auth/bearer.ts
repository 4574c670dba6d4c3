import type { Request } from 'express';

export function bearerOf(req: Request): string | null {
  const h = req.header('authorization');
  if (!h) {
    return null;
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : null;
}
