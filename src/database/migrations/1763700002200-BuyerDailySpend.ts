import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The daily cap's counter (docs/architecture.md "Daily spend"): per buyer agent and Indian
 * (IST) calendar day, what its payments committed that day: the amounts of its intents created
 * that day that are waiting for approval, processing or settled. A trigger on payment_intents keeps
 * it in the transaction that writes the intent (an insert adds, a move out of those statuses or a
 * delete subtracts), so every path that records or ends a payment keeps it exact; pay() reads one
 * row under the buyer's lock instead of summing the day's intents. Existing intents are counted.
 */
export class BuyerDailySpend1763700002200 implements MigrationInterface {
  name = 'BuyerDailySpend1763700002200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE buyer_daily_spend (
        buyer_agent_id text NOT NULL REFERENCES agents(id),
        day date NOT NULL,
        committed_paise bigint NOT NULL CONSTRAINT buyer_daily_spend_not_negative CHECK (committed_paise >= 0),
        PRIMARY KEY (buyer_agent_id, day)
      );

      -- The IST calendar day of an instant (IST is UTC+05:30 all year; indianDay in src/payments/buyer-rules.ts).
      CREATE FUNCTION ist_day(at timestamptz) RETURNS date
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN ((at AT TIME ZONE 'UTC') + interval '5 hours 30 minutes')::date;

      CREATE FUNCTION payment_intents_count_daily_spend() RETURNS trigger
        LANGUAGE plpgsql AS $$
      DECLARE
        delta bigint := 0;
        intent payment_intents;
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status IN ('requires_approval', 'processing', 'settled') THEN
          delta := delta - OLD.amount_paise;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.status IN ('requires_approval', 'processing', 'settled') THEN
          delta := delta + NEW.amount_paise;
        END IF;
        IF TG_OP = 'DELETE' THEN
          intent := OLD;
        ELSE
          intent := NEW;
        END IF;
        -- An upsert only adds: its CHECK is tested on the row it proposes, before any conflict.
        IF delta > 0 THEN
          INSERT INTO buyer_daily_spend AS s (buyer_agent_id, day, committed_paise)
          VALUES (intent.buyer_agent_id, ist_day(intent.created_at), delta)
          ON CONFLICT (buyer_agent_id, day)
            DO UPDATE SET committed_paise = s.committed_paise + EXCLUDED.committed_paise;
        ELSIF delta < 0 THEN
          UPDATE buyer_daily_spend SET committed_paise = committed_paise + delta
           WHERE buyer_agent_id = intent.buyer_agent_id AND day = ist_day(intent.created_at);
        END IF;
        RETURN NULL;
      END $$;

      CREATE TRIGGER payment_intents_count_daily_spend
        AFTER INSERT OR UPDATE OF status OR DELETE ON payment_intents
        FOR EACH ROW EXECUTE FUNCTION payment_intents_count_daily_spend();

      INSERT INTO buyer_daily_spend (buyer_agent_id, day, committed_paise)
      SELECT buyer_agent_id, ist_day(created_at), SUM(amount_paise)
        FROM payment_intents
       WHERE status IN ('requires_approval', 'processing', 'settled')
       GROUP BY 1, 2;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER payment_intents_count_daily_spend ON payment_intents;
      DROP FUNCTION payment_intents_count_daily_spend();
      DROP TABLE buyer_daily_spend;
      DROP FUNCTION ist_day(timestamptz);
    `);
  }
}
