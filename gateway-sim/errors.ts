/**
 * The gateway's error body: `{"error":{"code","description","field",…}}`. Thrown anywhere in the
 * simulator and rendered by the HTTP layer with its status.
 */
export type SimErrorCode = 'BAD_REQUEST_ERROR' | 'GATEWAY_ERROR' | 'SERVER_ERROR';

export interface SimErrorExtras {
  field?: string | null;
  reason?: string | null;
  metadata?: { order_id?: string; payment_id?: string } | null;
}

export class SimError extends Error {
  constructor(
    readonly status: number,
    readonly code: SimErrorCode,
    readonly description: string,
    readonly extras: SimErrorExtras = {},
  ) {
    super(description);
  }

  toReply(): { status: number; json: unknown } {
    return { status: this.status, json: this.body() };
  }

  body(): { error: Record<string, unknown> } {
    return {
      error: {
        code: this.code,
        description: this.description,
        field: this.extras.field ?? null,
        reason: this.extras.reason ?? null,
        ...(this.extras.metadata ? { metadata: this.extras.metadata } : {}),
      },
    };
  }
}

export function badRequest(description: string, field?: string): SimError {
  return new SimError(400, 'BAD_REQUEST_ERROR', description, { field: field ?? null });
}

/** The real gateway answers an unknown id with 400, not 404. */
export function notFound(what: string): SimError {
  return new SimError(400, 'BAD_REQUEST_ERROR', `The id provided does not exist (${what})`, {
    field: 'id',
  });
}
