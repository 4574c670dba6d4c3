import { ValueTransformer } from 'typeorm';

/**
 * The database spells currencies as ISO 4217 upper case ('INR', CHECKed); ACP's wire spelling is
 * lower case ('inr'). Entities of the ACP tables (checkout sessions, delegated tokens) carry the
 * wire spelling and store the database one through this transformer.
 */
export const lowerCaseCurrency: ValueTransformer = {
  to: (v: string | null | undefined) => (typeof v === 'string' ? v.toUpperCase() : v),
  from: (v: string | null) => (v === null ? null : v.toLowerCase()),
};
