import { Client } from 'pg';

import { StoredColumnType } from '../../src/database/personal-rows';
import {
  DATA_MAP,
  personalColumns,
  personalTables,
  walkedColumns,
} from '../../src/personal-data/data-map';
import { LEGAL_HOLDS } from '../../src/personal-data/legal-holds';
import { walkOrder } from '../../src/personal-data/map-erasure';
import { ROW_STORES } from '../../src/personal-data/row-stores';
import { TEST_DATABASE_URL } from '../support/test-db';

/**
 * The personal-data map names the whole schema (issue 39 item 2; docs/personal-data.md "The
 * personal-data map"): every text-capable column (text, varchar, jsonb, json, arrays, bytea) of
 * every table the migrations create is in src/personal-data/data-map.ts, as personal (category,
 * purpose, retention, erasure) or not, and the map names nothing the schema lacks. Read from the
 * migrated test database's information_schema.
 */

const TEXT_TYPES: Record<string, StoredColumnType> = {
  text: 'text',
  'character varying': 'text',
  character: 'text',
  jsonb: 'jsonb',
  json: 'jsonb',
  ARRAY: 'text[]',
  bytea: 'bytea',
  'USER-DEFINED': 'text',
};

interface DbColumn {
  table: string;
  column: string;
  type: StoredColumnType;
  nullable: boolean;
}

describe('personal-data map covers the schema', () => {
  let db: Client;
  let tables: string[];
  let columns: DbColumn[];

  beforeAll(async () => {
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    tables = (
      await db.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables
          WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
      )
    ).rows.map((r) => r.table_name);
    columns = (
      await db.query<{
        table_name: string;
        column_name: string;
        data_type: string;
        is_nullable: string;
      }>(
        `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable
           FROM information_schema.columns c
           JOIN information_schema.tables tb
             ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
          WHERE c.table_schema = 'public' AND tb.table_type = 'BASE TABLE'
            AND c.data_type = ANY($1::text[])
          ORDER BY c.table_name, c.ordinal_position`,
        [Object.keys(TEXT_TYPES)],
      )
    ).rows.map((r) => ({
      table: r.table_name,
      column: r.column_name,
      type: TEXT_TYPES[r.data_type],
      nullable: r.is_nullable === 'YES',
    }));
  });
  afterAll(() => db.end());

  it('reads a real schema', () => {
    expect(tables.length).toBeGreaterThan(50);
    expect(columns.length).toBeGreaterThan(300);
  });

  it('names every table', () => {
    const missing = tables.filter((t) => !DATA_MAP.some((m) => m.table === t));
    const hint = missing.map(
      (t) =>
        `table ${t}: add { table: '${t}', owner: '<its *.repository.ts>', download: '…', columns: [...] } ` +
        'to DATA_MAP in src/personal-data/data-map.ts',
    );
    expect(hint).toEqual([]);
  });

  it('names every text, varchar, jsonb, array and bytea column, as personal or not', () => {
    const missing = columns.filter(
      (c) => !DATA_MAP.find((m) => m.table === c.table)?.columns.some((x) => x.column === c.column),
    );
    const hint = missing.map(
      (c) =>
        `${c.table}.${c.column} (${c.type}): add it to the '${c.table}' entry of DATA_MAP in ` +
        `src/personal-data/data-map.ts, either ...ids/codes/hashes/refs/fixed/business('${c.column}') ` +
        `when it can never hold personal data, or personal('${c.column}', '${c.type}', <category>, ` +
        '<purpose>, <retention>, <erasure>[, <json paths>]) — and run `npm run personal-data:doc`',
    );
    expect(hint).toEqual([]);
  });

  it('names no table or column the schema lacks, with the stored type', () => {
    const stale = DATA_MAP.flatMap((m) =>
      !tables.includes(m.table)
        ? [
            `table ${m.table}: no such table; remove it from DATA_MAP (src/personal-data/data-map.ts)`,
          ]
        : m.columns.flatMap((c) => {
            const db = columns.find((x) => x.table === m.table && x.column === c.column);
            return !db
              ? [`${m.table}.${c.column}: no such text-capable column; remove it from DATA_MAP`]
              : db.type !== c.type
                ? [`${m.table}.${c.column}: stored as ${db.type}, the map says ${c.type}`]
                : [];
          }),
    );
    expect(stale).toEqual([]);
  });

  it('names each column once', () => {
    const seen = DATA_MAP.flatMap((m) => m.columns.map((c) => `${m.table}.${c.column}`));
    expect(seen.filter((x, i) => seen.indexOf(x) !== i)).toEqual([]);
    const names = DATA_MAP.map((m) => m.table);
    expect(names.filter((x, i) => names.indexOf(x) !== i)).toEqual([]);
  });

  it('gives every personal column a purpose, a retention and an erasure that can work', () => {
    const problems: string[] = [];
    for (const t of personalTables()) {
      for (const c of personalColumns(t)) {
        const where = `${t.table}.${c.column}`;
        if (c.purpose.length < 10) {
          problems.push(`${where}: say what it is for (purpose)`);
        }
        const e = c.erasure;
        if (e.action === 'keep' && !LEGAL_HOLDS.some((h) => h.kind === e.hold)) {
          problems.push(`${where}: keep needs a legal hold from src/personal-data/legal-holds.ts`);
        }
        if (c.paths && c.type === 'bytea') {
          problems.push(`${where}: JSON paths on a bytea column`);
        }
        if (c.type === 'jsonb' && !c.paths?.length) {
          problems.push(`${where}: list the JSON paths that can hold personal data`);
        }
        const db = columns.find((x) => x.table === t.table && x.column === c.column);
        if (c.erasure.action === 'redact' && c.erasure.how === 'clear' && db && !db.nullable) {
          problems.push(`${where}: 'clear' sets NULL but the column is NOT NULL; use 'replace'`);
        }
        if (c.erasure.action === 'redact' && c.erasure.how === 'replace' && c.type === 'bytea') {
          problems.push(`${where}: cannot replace text inside bytea`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('has an owner store for every table erasure walks, and walks every such table', () => {
    const walked = DATA_MAP.filter((t) => walkedColumns(t).length > 0).map((t) => t.table);
    expect(
      walked.filter((t) => !ROW_STORES[t]).map((t) => `${t}: add a store (row-stores.ts)`),
    ).toEqual([]);
    expect(
      walkOrder()
        .map((t) => t.table)
        .sort(),
    ).toEqual([...walked].sort());
  });

  it('reads every walked column through its store against the real schema', async () => {
    const scope = {
      workspaceId: 'ws_none',
      personId: 'per_none',
      agentIds: ['ag_none'],
      credentialIds: ['key_none'],
      intentIds: ['pi_none'],
      sessionIds: ['cs_none'],
    };
    const m = {
      query: (text: string, params: unknown[]) => db.query(text, params).then((r) => r.rows),
    };
    for (const t of walkOrder()) {
      await expect(
        ROW_STORES[t.table].read(
          m as never,
          scope,
          walkedColumns(t).map((c) => c.column),
        ),
      ).resolves.toEqual([]);
    }
  });
});
