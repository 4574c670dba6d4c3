import type { NextFunction, Request, Response } from 'express';

import { inOrder } from '../../../src/common/http/http-pipeline';

/**
 * The HTTP pipeline runs as one middleware (inOrder): its steps in order, each started by the one
 * before it, and an error, passed on or thrown, skips the rest as Express would.
 */
type Step = (req: Request, res: Response, next: NextFunction) => void;

const req = {} as Request;
const res = {} as Response;

function run(steps: Step[]): Promise<unknown[]> {
  return new Promise((resolve) => {
    inOrder(steps)(req, res, (...args: unknown[]) => resolve(args));
  });
}

describe('inOrder', () => {
  it('runs every step in order, then goes on with no error', async () => {
    const seen: string[] = [];
    const step =
      (name: string): Step =>
      (_q, _s, next) => {
        seen.push(name);
        next();
      };
    await expect(run([step('a'), step('b'), step('c')])).resolves.toEqual([]);
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('a step that goes on later (a body parser) starts the next one then', async () => {
    const seen: string[] = [];
    const later: Step = (_q, _s, next) => {
      setImmediate(() => {
        seen.push('parsed');
        next();
      });
    };
    const after: Step = (_q, _s, next) => {
      seen.push('after');
      next();
    };
    await run([later, after]);
    expect(seen).toEqual(['parsed', 'after']);
  });

  it('an error passed on skips the rest and is handed on', async () => {
    const err = new Error('refused');
    const never = jest.fn();
    await expect(run([(_q, _s, next) => next(err), never])).resolves.toEqual([err]);
    expect(never).not.toHaveBeenCalled();
  });

  it('an error thrown, at once or after a step that went on later, is handed on the same way', async () => {
    const err = new Error('thrown');
    const never = jest.fn();
    const thrower: Step = () => {
      throw err;
    };
    await expect(run([thrower, never])).resolves.toEqual([err]);
    const later: Step = (_q, _s, next) => setImmediate(() => next());
    await expect(run([later, thrower, never])).resolves.toEqual([err]);
    expect(never).not.toHaveBeenCalled();
  });

  it('no steps: goes straight on', async () => {
    await expect(run([])).resolves.toEqual([]);
  });
});
