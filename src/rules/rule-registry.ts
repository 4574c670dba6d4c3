/**
 * The rules registry (docs/rules.md, generated from this data by `npm run rules:doc`): every
 * regulatory number the service applies, and the product rules that sit beside them, as dated,
 * sourced data. A rule is a list of versions, each in force from 00:00 IST of its `effectiveFrom`
 * date until the next version starts; `valueAt(ruleId, at)` answers the version in force at the
 * event's instant. Pure: no configuration, no I/O (src/config asks this file for its defaults, so
 * this file never imports configuration values).
 *
 * Certainty follows ../shared/DOMAIN.md: `certain` [C], `uncertain` [U]. An uncertain value is
 * always configurable (the configuration names the variable, and the configured value then wins
 * over every dated version); a certain regulatory value is fixed in code.
 */

export type Certainty = 'certain' | 'uncertain';

/** Whose rule it is: a regulator's (RBI, NPCI, Income-tax Act) or our own product's, stricter. */
export type RuleKind = 'regulatory' | 'product';

export interface RuleVersion<T> {
  /**
   * IST calendar date (YYYY-MM-DD) from which this version applies, at 00:00 IST; null: the
   * source gives no date, and the version applies to every instant before the next one.
   */
  effectiveFrom: string | null;
  value: T;
  /** Document or circular, with its date, as ../shared/DOMAIN.md gives it (item number). */
  source: string;
  certainty: Certainty;
}

export interface RuleConfig {
  /** The environment variable that overrides the registry (docs/configuration.md "Configuration"). */
  env: string;
  /** How the override relates to the dated versions. */
  note: string;
}

export interface RuleTest {
  /** Repository-relative path of the test file that pins the value. */
  file: string;
  /** The exact title of the `it(…)` that pins it. */
  title: string;
}

export interface Rule<T = unknown> {
  id: string;
  title: string;
  kind: RuleKind;
  /** The unit of `value` (paise, ms, US cents, …), for the generated page. */
  unit: string;
  /** Oldest first; effective dates strictly increasing (a null date only first). */
  versions: readonly RuleVersion<T>[];
  /** null: fixed in code. */
  configurable: RuleConfig | null;
  /** Where the service applies it (files), or why it does not. */
  appliedIn: readonly string[];
  pinnedBy: RuleTest;
  /** How a value reads on the page (defaults to JSON). */
  format?(value: T): string;
  notes?: string;
}

const IST_OFFSET_MS = 330 * 60_000;

/** 00:00 IST of a YYYY-MM-DD date, as an instant. */
export function istDayStart(date: string): Date {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(date)) {
    throw new Error(`not an IST date (YYYY-MM-DD): ${date}`);
  }
  return new Date(Date.parse(`${date}T00:00:00Z`) - IST_OFFSET_MS);
}

export class RuleNotInForceError extends Error {}

/** A registry over a list of rules; `RULES` (rule-catalog.ts) is the one the service uses. */
export class RuleRegistry {
  private readonly byId = new Map<string, Rule>();

  constructor(rules: readonly Rule[]) {
    for (const rule of rules) {
      if (this.byId.has(rule.id)) {
        throw new Error(`rule ${rule.id} is defined twice`);
      }
      checkVersions(rule);
      this.byId.set(rule.id, rule);
    }
  }

  all(): Rule[] {
    return [...this.byId.values()];
  }

  get<T>(ruleId: string): Rule<T> {
    const rule = this.byId.get(ruleId);
    if (!rule) {
      throw new Error(`no rule ${ruleId} in the registry`);
    }
    return rule as Rule<T>;
  }

  /** The version in force at `at` (IST dates), or null before the first dated version. */
  versionAt<T>(ruleId: string, at: Date): RuleVersion<T> | null {
    const versions = this.get<T>(ruleId).versions;
    let found: RuleVersion<T> | null = null;
    for (const v of versions) {
      if (v.effectiveFrom === null || istDayStart(v.effectiveFrom).getTime() <= at.getTime()) {
        found = v;
      }
    }
    return found;
  }

  /** The value in force at the event's instant; throws before the rule's first dated version. */
  valueAt<T>(ruleId: string, at: Date): T {
    const v = this.versionAt<T>(ruleId, at);
    if (!v) {
      throw new RuleNotInForceError(`rule ${ruleId} is not in force at ${at.toISOString()}`);
    }
    return v.value;
  }

  /**
   * The newest version's value: the default a configurable rule gives its configuration variable
   * (read once at boot), and the value of a rule with a single version.
   */
  latest<T>(ruleId: string): T {
    const versions = this.get<T>(ruleId).versions;
    return versions[versions.length - 1].value;
  }
}

function checkVersions(rule: Rule): void {
  if (rule.versions.length === 0) {
    throw new Error(`rule ${rule.id} has no version`);
  }
  let previous = -Infinity;
  rule.versions.forEach((v, i) => {
    if (v.effectiveFrom === null) {
      if (i !== 0) {
        throw new Error(`rule ${rule.id}: only its first version may be undated`);
      }
      return;
    }
    const start = istDayStart(v.effectiveFrom).getTime();
    if (!(start > previous)) {
      throw new Error(`rule ${rule.id}: versions must be in increasing date order`);
    }
    previous = start;
  });
  const uncertain = rule.versions.some((v) => v.certainty === 'uncertain');
  if (uncertain && !rule.configurable && rule.appliedIn.length > 0) {
    throw new Error(`rule ${rule.id} has an uncertain version the service applies: configure it`);
  }
}
