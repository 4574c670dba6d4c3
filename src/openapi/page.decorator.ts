import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';

/** 200 with one page of `item` (src/common/pagination.ts `Page<T>`): {object, data, has_more, next_cursor}. */
export function ApiPageResponse(item: Type<unknown>, description?: string) {
  return applyDecorators(
    ApiExtraModels(item),
    ApiOkResponse({
      description: description ?? `A page of ${item.name}, newest first`,
      schema: {
        type: 'object',
        required: ['object', 'data', 'has_more', 'next_cursor'],
        properties: {
          object: { type: 'string', enum: ['list'] },
          data: { type: 'array', items: { $ref: getSchemaPath(item) } },
          has_more: { type: 'boolean' },
          next_cursor: {
            type: 'string',
            nullable: true,
            description: 'Pass as starting_after for the next page; null on the last page',
          },
        },
      },
    }),
  );
}
