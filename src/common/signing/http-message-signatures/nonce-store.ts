// Replay protection for signature nonces (docs/http-message-signatures.md, "Nonces").

/** Remembers nonces per key until a time after which the signature would be refused anyway. */
export interface NonceStore {
  /** True when the nonce was unused for this keyid (and is now taken), false when seen before. */
  claim(keyid: string, nonce: string, until: Date): Promise<boolean>;
}

/** A process-local store for tests and single-instance tools; forgets entries once past `until`. */
export class InMemoryNonceStore implements NonceStore {
  private readonly seen = new Map<string, number>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  claim(keyid: string, nonce: string, until: Date): Promise<boolean> {
    const now = this.now().getTime();
    for (const [key, expiry] of this.seen) {
      if (expiry <= now) {
        this.seen.delete(key);
      }
    }
    const key = JSON.stringify([keyid, nonce]);
    if (this.seen.has(key)) {
      return Promise.resolve(false);
    }
    this.seen.set(key, until.getTime());
    return Promise.resolve(true);
  }

  get size(): number {
    return this.seen.size;
  }
}
