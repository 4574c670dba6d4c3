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
 * The contract describes each UCP answer (src/ucp/ucp-openapi.ts): the checkout, order, business
 * profile and handler documents with their required members and types, and every refusal a route
 * can answer as UCP's error_response (a 200 of a negotiated route is either the resource or the
 * capabilities_incompatible error_response). An answer whose status the contract does not list
 * for that operation fails the test, as does one declared in the /v1 shape (V1Error) and a UCP
 * path with no template in the contract.
 */
const UCP_PATH = /^\/(ucp(\/|$)|\.well-known\/ucp$)/;

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

/** Validates one UCP answer against openapi/openapi.json; throws when it is not described. */
export function expectUcpContract(method: string, url: string, res: Response): boolean {
  const path = new URL(url, 'http://x').pathname;
  if (!UCP_PATH.test(path)) {
    return false;
  }
  const template = ucpTemplate(path);
  const schema = contractResponseSchema(template, method, res.status);
  if (schema === undefined || isV1Error(schema)) {
    throw new Error(
      `openapi/openapi.json does not describe ${method.toUpperCase()} ${template} ${res.status} in UCP's shape:\n${JSON.stringify(res.body, null, 2)}`,
    );
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
