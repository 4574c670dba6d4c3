/**
 * The roles a credential carries (docs/security.md "Credentials and who uses which"). They are
 * defined here, below the features, because the auth guards and `Principal` read them; the
 * accounts and protocol-keys entities import them from here.
 */

/** What an agent may do: sell, buy, or both. */
export type AgentRole = 'seller' | 'buyer' | 'both';

/** Which side of an ACP checkout a protocol key speaks for. */
export type ProtocolKeyRole = 'merchant' | 'buyer';
