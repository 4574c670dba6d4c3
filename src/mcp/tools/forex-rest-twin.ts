import { ForexController } from '../../forex/forex.controller';
import type { RestTwin } from '../mcp-idempotency';

/** The forex REST route (POST, ForexController.<handler>) whose idempotency records a tool shares. */
export function forexRestTwin(
  path: string,
  body: object,
  handler: 'create' | 'quote' | 'upload' | 'submit',
): RestTwin {
  return {
    method: 'POST',
    path,
    body,
    controller: ForexController,
    // Only its metadata (HttpCode) is read, never called.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    handler: ForexController.prototype[handler],
  };
}
