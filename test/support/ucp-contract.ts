import supertest, { type Response, type Test } from 'supertest';

import {
  contractPaths,
  contractResponseSchema,
  expectContractResponse,
} from './contract-validator';

/**
 * Our committed contract for UCP, always (docs/testing.md): every response of a UCP route
 * (`/ucp/…` and `/.well-known/ucp`) that a test makes through `request` below is validated against
 * the schema openapi/openapi.json gives that operation and status, whether or not the official UCP
 * schemas (UCP_SCHEMA_DIR) are present.
 *
 * What the generated contract describes of UCP is thin, and this checks only that:
 * - success answers (200/201) are `{type: object, additionalProperties: true}` (the description
 *   names checkout.json / order.json; the schema does not carry them), so a success body is
 *   checked to be a JSON object;
 * - refusals (400, 401, 403, 404, 409, 422, 424, and the 200 `capabilities_incompatible` of a
 *   create) are not listed at all, and 429/500/503 are listed as `V1Error`, which is wrong for
 *   UCP routes (they answer `types/error_response.json`). Those answers are recorded in
 *   `undescribedUcpAnswers` and not validated against the contract; the official
 *   `error_response.json` check (test/support/ucp-schema.ts) and each test's own assertions cover
 *   them.
 * A UCP path with no template in the contract fails the test.
 */
const UCP_PATH = /^\/(ucp(\/|$)|\.well-known\/ucp$)/;

export const undescribedUcpAnswers = new Set<string>();

let templates: { template: string; pattern: RegExp; params: number }[] | null = null;

function ucpTemplate(path: string): string {
  templates ??= contractPaths()
    .filter((p) => UCP_PATH.test(p))
    .map((template) => ({
      template,
      pattern: new RegExp(
        `^${template
          .split(/\{[^}]+\}/)
          .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
          .join('[^/]+')}$`,
      ),
      params: (template.match(/\{/g) ?? []).length,
    }))
    // A literal segment wins over a parameter.
    .sort((a, b) => a.params - b.params);
  const hit = templates.find((t) => t.pattern.test(path));
  if (!hit) {
    throw new Error(`openapi/openapi.json has no path for the UCP route ${path}`);
  }
  return hit.template;
}

function isV1Error(schema: unknown): boolean {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    (schema as { $ref?: unknown }).$ref === '#/components/schemas/V1Error'
  );
}

/**
 * Validates one UCP answer against openapi/openapi.json where the contract describes it (see
 * above). Returns false (and records it) when the contract does not describe that answer.
 */
export function expectUcpContract(method: string, url: string, res: Response): boolean {
  const path = new URL(url, 'http://x').pathname;
  if (!UCP_PATH.test(path)) {
    return false;
  }
  const template = ucpTemplate(path);
  const schema = contractResponseSchema(template, method, res.status);
  if (schema === undefined || isV1Error(schema)) {
    undescribedUcpAnswers.add(`${method.toUpperCase()} ${template} ${res.status}`);
    return false;
  }
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expectContractResponse(template, method, res.status, res.body);
  return true;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ContractAgent {
  get(url: string): Test;
  post(url: string): Test;
  put(url: string): Test;
  patch(url: string): Test;
  delete(url: string): Test;
}

/**
 * supertest's `request(base)`, with every UCP answer checked by expectUcpContract (added as the
 * first assertion; other routes pass through unchecked).
 */
export default function request(base: string): ContractAgent {
  const agent = supertest(base);
  const wrap =
    (method: Method) =>
    (url: string): Test =>
      agent[method](url).expect((res: Response) => {
        expectUcpContract(method, url, res);
      });
  return {
    get: wrap('get'),
    post: wrap('post'),
    put: wrap('put'),
    patch: wrap('patch'),
    delete: wrap('delete'),
  };
}
