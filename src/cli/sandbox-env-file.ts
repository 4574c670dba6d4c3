import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * Writing the sandbox's env file (`npm run sandbox -- --env-file FILE`, docs/security.md "The
 * sandbox env file"): it holds live credentials, so it is written where nobody else can steer it.
 * - The target may not be a symbolic link (nor anything but a regular file): refused before the
 *   sandbox is set up, and again just before writing.
 * - The text goes to a new file beside the target with an unpredictable name (16 random bytes),
 *   created with O_CREAT | O_EXCL | O_NOFOLLOW and mode 0600: a file or link planted under any name
 *   is never opened, let alone written through.
 * - That file is flushed and renamed over the target. rename(2) replaces a link at the target
 *   rather than following it, so a link planted between the check and the rename is replaced, and
 *   the target is never half-written.
 */

function refusal(message: string): Error {
  // `preflight`: src/cli/sandbox.ts prints the message alone, no stack.
  return Object.assign(new Error(message), { preflight: true });
}

/** Refuses a target that is a symbolic link or not a regular file; a missing one is fine. */
export function refuseUnsafeEnvTarget(path: string): void {
  let stat;
  try {
    stat = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return;
    }
    throw err;
  }
  if (stat.isSymbolicLink()) {
    throw refusal(
      `${path} is a symbolic link: refusing to write credentials through it. Remove it or name another file`,
    );
  }
  if (!stat.isFile()) {
    throw refusal(`${path} is not a regular file: refusing to write credentials there`);
  }
}

/** A new temporary name beside `target`: `.NAME.<32 hex digits>.tmp`. */
export function temporaryNameFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(16).toString('hex')}.tmp`);
}

/** Creates `path` for writing, 0600; fails (EEXIST) when anything, a link included, is there. */
export function createExclusive(path: string): number {
  return openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
}

/** Writes `text` to `path` as described above (mode 0600). */
export function writeEnvFileSafely(path: string, text: string): void {
  const target = resolve(path);
  refuseUnsafeEnvTarget(target);
  const tmp = temporaryNameFor(target);
  const fd = createExclusive(tmp);
  try {
    try {
      const bytes = Buffer.from(text, 'utf8');
      let at = 0;
      while (at < bytes.length) {
        at += writeSync(fd, bytes, at, bytes.length - at);
      }
      // The umask can only take bits away from 0600; set it exactly all the same.
      fchmodSync(fd, 0o600);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // Already renamed or gone.
    }
    throw err;
  }
}
