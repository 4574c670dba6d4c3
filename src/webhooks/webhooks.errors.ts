import { AppError, commonErrors } from '../common/errors/app-error';

export const webhookErrors = {
  endpointNotFound: (id: string) => commonErrors.notFound('webhook endpoint', id),
  deliveryNotFound: (id: string) => commonErrors.notFound('webhook delivery', id),
  urlRefused: (reason: string) =>
    new AppError(400, 'invalid_request', 'webhook_url_refused', reason, '$.url'),
  wildcardNotAlone: () =>
    commonErrors.invalid(
      '$.event_types',
      "event_types is either ['*'] or a list of event types, not both",
    ),
  agentNotSeller: (agentId: string) =>
    new AppError(
      400,
      'invalid_request',
      'invalid',
      `${agentId} is not a seller agent of this workspace`,
      '$.agent_id',
    ),
  queueUnavailable: () => commonErrors.unavailable('The webhook queue'),
};
