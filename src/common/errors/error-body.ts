import { AppError } from './app-error';

/** Which wire shape a route speaks. */
export type ErrorFlavor = 'acp' | 'v1';

export interface AcpErrorBody {
  type: string;
  code: string;
  message: string;
  param?: string;
  supported_versions?: string[];
}

export interface V1ErrorBody {
  error: { type: string; code: string; message: string; param?: string; request_id: string };
}

export function flavorOf(path: string): ErrorFlavor {
  return path.startsWith('/acp') ? 'acp' : 'v1';
}

export function renderError(
  err: AppError,
  flavor: ErrorFlavor,
  requestId: string,
): AcpErrorBody | V1ErrorBody {
  const flat: AcpErrorBody = { type: err.type, code: err.code, message: err.message };
  if (err.param !== undefined) {
    flat.param = err.param;
  }
  if (err.extra.supportedVersions) {
    flat.supported_versions = err.extra.supportedVersions;
  }
  if (flavor === 'acp') {
    return flat;
  }
  return { error: { ...flat, request_id: requestId } };
}
