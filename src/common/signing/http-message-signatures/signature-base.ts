import { type InnerList, type Parameters, serializeInnerList } from 'structured-headers';

import {
  type HeaderValue,
  type HttpHeaders,
  type HttpMessage,
  isRequest,
  type SignatureParams,
} from './types';

// Signature base per RFC 9421 §2.5 for the components we support
// (docs/http-message-signatures.md, "Components").

export const DERIVED_COMPONENTS = [
  '@method',
  '@target-uri',
  '@authority',
  '@scheme',
  '@path',
  '@query',
  '@status',
] as const;

/** Lowercase field names made of token characters (RFC 9110 field-name). */
const FIELD_NAME = /^[a-z0-9!#$%&'*+.^_`|~-]+$/;

/** A component the message cannot supply, or one we do not support. */
export class ComponentError extends Error {
  override readonly name = 'ComponentError';
  constructor(
    readonly kind: 'absent' | 'unsupported',
    readonly component: string,
    message: string,
  ) {
    super(message);
  }
}

export function isSupportedComponent(component: string): boolean {
  return component.startsWith('@')
    ? (DERIVED_COMPONENTS as readonly string[]).includes(component)
    : FIELD_NAME.test(component);
}

function lineValue(value: string): string {
  // Obsolete line folding becomes one space, then outer whitespace goes.
  return value.replace(/\r?\n[ \t]+/g, ' ').trim();
}

/** One header's value as it enters the base, or undefined when the message lacks it. */
export function headerValue(headers: HttpHeaders, name: string): string | undefined {
  const lines: string[] = [];
  let found = false;
  for (const [key, raw] of Object.entries<HeaderValue>(headers)) {
    if (key.toLowerCase() !== name || raw === undefined) {
      continue;
    }
    found = true;
    if (typeof raw === 'string' || typeof raw === 'number') {
      lines.push(lineValue(String(raw)));
    } else {
      lines.push(...raw.map(lineValue));
    }
  }
  return found ? lines.join(', ') : undefined;
}

function targetUrl(url: string | URL): URL {
  return url instanceof URL ? url : new URL(url);
}

/** The value of one covered component of the message. */
export function componentValue(message: HttpMessage, component: string): string {
  if (!component.startsWith('@')) {
    if (!FIELD_NAME.test(component)) {
      throw new ComponentError(
        'unsupported',
        component,
        `not a lowercase field name: ${component}`,
      );
    }
    const value = headerValue(message.headers, component);
    if (value === undefined) {
      throw new ComponentError('absent', component, `the message has no ${component} header`);
    }
    return value;
  }
  if (component === '@status') {
    if (isRequest(message)) {
      throw new ComponentError('unsupported', component, '@status is for responses only');
    }
    return String(message.status);
  }
  if (!isRequest(message)) {
    throw new ComponentError(
      'unsupported',
      component,
      `${component} is not supported on responses`,
    );
  }
  const url = targetUrl(message.url);
  switch (component) {
    case '@method':
      return message.method;
    case '@target-uri':
      return url.href;
    case '@authority':
      return url.host.toLowerCase();
    case '@scheme':
      return url.protocol.slice(0, -1).toLowerCase();
    case '@path':
      return url.pathname === '' ? '/' : url.pathname;
    case '@query':
      return `?${url.search.slice(1)}`;
    default:
      throw new ComponentError(
        'unsupported',
        component,
        `unsupported derived component ${component}`,
      );
  }
}

/** Signature parameters in the order we write them: created, expires, nonce, keyid, alg, tag. */
export function parametersOf(params: SignatureParams): Parameters {
  const out: Parameters = new Map();
  if (params.created !== undefined) {
    out.set('created', params.created);
  }
  if (params.expires !== undefined) {
    out.set('expires', params.expires);
  }
  if (params.nonce !== undefined) {
    out.set('nonce', params.nonce);
  }
  if (params.keyid !== undefined) {
    out.set('keyid', params.keyid);
  }
  if (params.alg !== undefined) {
    out.set('alg', params.alg);
  }
  if (params.tag !== undefined) {
    out.set('tag', params.tag);
  }
  return out;
}

/** The covered components with their parameters, as an inner list. */
export function signatureInputList(components: readonly string[], params: Parameters): InnerList {
  return [components.map((c) => [c, new Map()]), params];
}

/**
 * The signature base: one `"component": value` line per covered component, then the
 * `@signature-params` line holding the serialised inner list. No trailing newline.
 */
export function signatureBase(message: HttpMessage, input: InnerList): string {
  const lines: string[] = [];
  for (const [item, itemParams] of input[0]) {
    if (typeof item !== 'string') {
      throw new ComponentError('unsupported', String(item), 'a covered component is not a string');
    }
    if (itemParams.size > 0) {
      throw new ComponentError(
        'unsupported',
        item,
        `component parameters are not supported (${item})`,
      );
    }
    const value = componentValue(message, item);
    if (/[\r\n]/.test(value)) {
      throw new ComponentError('unsupported', item, `${item} holds a line break`);
    }
    lines.push(`"${item}": ${value}`);
  }
  lines.push(`"@signature-params": ${serializeInnerList(input)}`);
  return lines.join('\n');
}
