import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

import { commonErrors } from './errors/app-error';

/** Cursor pagination: `limit` (1–100, default 20) and an opaque `starting_after` cursor. */
export class PageQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'Cursor from the previous page (next_cursor)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  starting_after?: string;
}

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface Cursor {
  createdAt: Date;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.createdAt.toISOString(), c.id])).toString('base64url');
}

export function decodeCursor(s: string | undefined): Cursor | null {
  if (!s) {
    return null;
  }
  try {
    const [at, id] = JSON.parse(Buffer.from(s, 'base64url').toString()) as [string, string];
    const createdAt = new Date(at);
    if (typeof id !== 'string' || Number.isNaN(createdAt.getTime())) {
      throw new Error('bad cursor');
    }
    return { createdAt, id };
  } catch {
    throw commonErrors.invalid(
      '$.query.starting_after',
      'starting_after is not a cursor this API issued',
    );
  }
}

/** Builds a page from rows fetched with limit + 1, newest first. */
export function toPage<R extends { createdAt: Date; id: string }, T>(
  rows: R[],
  limit: number,
  map: (r: R) => T,
): Page<T> {
  const hasMore = rows.length > limit;
  const slice = rows.slice(0, limit);
  const last = slice[slice.length - 1];
  return {
    object: 'list',
    data: slice.map(map),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(last) : null,
  };
}

/**
 * Keyset pagination on (created_at, id), newest first: applies the cursor, the order and
 * limit + 1 (toPage uses the extra row to tell whether there is a next page).
 */
export function newestFirst<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  limit: number,
  after: Cursor | null,
): SelectQueryBuilder<T> {
  if (after) {
    qb.andWhere(`(${alias}.created_at, ${alias}.id) < (:cursorAt, :cursorId)`, {
      cursorAt: after.createdAt,
      cursorId: after.id,
    });
  }
  return qb
    .orderBy(`${alias}.created_at`, 'DESC')
    .addOrderBy(`${alias}.id`, 'DESC')
    .limit(limit + 1);
}
