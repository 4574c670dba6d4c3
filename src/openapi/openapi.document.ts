import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

import { AUTOPAY_EVENT_SCHEMAS } from '../recurring/dto/autopay-events.schema';
import { addErrorResponses } from './error-responses';
import { addMcpPath } from './mcp.openapi';
import { finaliseOperations } from './operations';

const LICENSE_URL = 'https://www.apache.org/licenses/LICENSE-2.0';

/** The OpenAPI contract, built from our decorators; written to openapi/openapi.json by `npm run openapi`. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Agent commerce and payments service')
    .setDescription(
      'ACP 2026-04-17 merchant checkout and delegate_payment over UPI mandates, seller surface and signed receipts. ' +
        'Protocol routes (/acp) take a protocol key and answer errors flat as {type, code, message, param}; /v1 routes take ' +
        'an API key or an agent credential and answer errors as {"error":{type, code, message, param, request_id}}. ' +
        'Every POST accepts Idempotency-Key (required on /acp). See docs/security.md for signing and docs/try-it.md for the full flow.',
    )
    .setVersion('2026-04-17')
    .setLicense('Apache-2.0', LICENSE_URL)
    // The committed contract names no deployment: a variable whose default is the local default.
    // /docs serves the deployment's own address instead (servedContract below).
    .addServer('{baseUrl}', 'This deployment', {
      baseUrl: {
        default: 'http://localhost:3000',
        description: 'BASE_URL of the deployment (default http://localhost:PORT)',
      },
    })
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description:
          "Workspace API key (sk_test_…, $API_KEY in the sandbox): the workspace owner's own software. Issued on " +
          'the developers page or by POST /v1/api-keys; revoked there. Manages agents, keys and webhooks (docs/credentials.md).',
      },
      'apiKey',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description:
          'Agent credential (agc_…, $SELLER_AGENT_CREDENTIAL or $BUYER_AGENT_CREDENTIAL): one seller or buyer agent. Issued ' +
          'with the agent (POST /v1/pay/agents), replaced by POST /v1/pay/agents/{id}/credential. /v1/pay and /mcp (docs/credentials.md).',
      },
      'agentCredential',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description:
          'Merchant protocol key (acpk_…, role merchant, $MERCHANT_PROTOCOL_KEY): the agent platform checking out with the ' +
          'seller. Issued in the consent centre or by POST /v1/pay/protocol-keys; revoked there. /acp checkout and /ucp (docs/credentials.md).',
      },
      'merchantProtocolKey',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description:
          "Buyer protocol key (acpk_…, role buyer, $BUYER_PROTOCOL_KEY): the buyer's assistant. Issued in the consent centre " +
          'or by POST /v1/pay/protocol-keys; revoked there. delegate_payment and /acp/receipts (docs/credentials.md).',
      },
      'buyerProtocolKey',
    )
    .build();
  const doc = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_c, method) => method,
    // Webhook bodies no route returns: components.schemas (docs/recurring.md, docs/webhooks.md).
    extraModels: AUTOPAY_EVENT_SCHEMAS,
  });
  // The repository's LICENSE (package.json "license").
  doc.info.license = { name: 'Apache-2.0', url: LICENSE_URL };
  delete doc.info.contact;
  addWebhookCallbacks(doc);
  addMcpPath(doc);
  finaliseOperations(doc);
  return addErrorResponses(doc);
}

/**
 * The AutoPay events an endpoint registered by POST /v1/webhooks/endpoints receives, as OpenAPI 3.0
 * callbacks of that operation: a POST of the event body to the endpoint's url (docs/webhooks.md,
 * docs/recurring.md).
 */
function addWebhookCallbacks(doc: OpenAPIObject): void {
  const register = doc.paths['/v1/webhooks/endpoints']?.post;
  if (!register) {
    return;
  }
  const event = (name: string, summary: string) => ({
    '{$request.body#/url}': {
      post: {
        summary,
        description:
          'Standard Webhooks delivery (webhook-id, webhook-timestamp, webhook-signature headers); answer 2xx. docs/webhooks.md',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
        },
        // Signed with the endpoint's secret (the headers above), no bearer credential.
        security: [],
        responses: {
          '200': { description: 'Received (any 2xx)' },
          '400': { description: 'Not received: any other answer is retried (docs/webhooks.md)' },
        },
      },
    },
  });
  register.callbacks = {
    ...register.callbacks,
    'recurring.pre_debit_notice': event(
      'AutopayPreDebitNoticeEvent',
      "The pre-debit notice, to the buyer's endpoints at least 24 h before an AutoPay debit",
    ),
    'recurring.post_debit_alert': event(
      'AutopayPostDebitAlertEvent',
      "The post-debit alert, to the buyer's endpoints after every AutoPay debit, settled or failed",
    ),
  };
}

/**
 * The contract as /docs and /docs/openapi.json serve it: its server is this deployment (BASE_URL),
 * so Swagger UI's "Try it out" calls the origin the page came from and the page's CSP
 * (connect-src 'self', src/common/http/security-headers.ts) lets it. In sandbox mode the address
 * the page was opened on comes first, for a developer who reached it by another name than BASE_URL
 * (docs/configuration.md "BASE_URL").
 */
export function servedContract(
  doc: OpenAPIObject,
  config: { baseUrl: string; mode: string },
  requestOrigin: string | null,
): OpenAPIObject {
  const base = config.baseUrl.replace(/\/+$/, '');
  const servers = [{ url: base, description: 'This deployment (BASE_URL)' }];
  if (config.mode === 'sandbox' && requestOrigin && requestOrigin !== base) {
    servers.unshift({ url: requestOrigin, description: 'The address this page was opened on' });
  }
  return { ...doc, servers };
}

/** `http(s)://host[:port]` of a request, or null when its Host header is not a plain host. */
export function originOf(protocol: string, host: string | undefined): string | null {
  if (!host || !/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)) {
    return null;
  }
  try {
    return new URL(`${protocol === 'https' ? 'https' : 'http'}://${host}`).origin;
  } catch {
    return null;
  }
}

function sortedKeys<T>(record: Record<string, T> | undefined): Record<string, T> | undefined {
  return (
    record &&
    Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, record[k]]),
    )
  );
}

/**
 * Stable JSON text for the committed file (a test compares it with the live document). Paths and
 * schemas are sorted so the text does not depend on the order Nest happens to load modules in.
 */
export function serialiseOpenApi(doc: OpenAPIObject): string {
  const stable = {
    ...doc,
    paths: sortedKeys(doc.paths),
    components: doc.components && {
      ...doc.components,
      schemas: sortedKeys(doc.components.schemas),
    },
  };
  return `${JSON.stringify(stable, null, 2)}\n`;
}
