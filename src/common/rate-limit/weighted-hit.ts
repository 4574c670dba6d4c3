import type Redis from 'ioredis';

/** What one hit answers (times in whole seconds). */
export interface WeightedHit {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/**
 * One hit, as one atomic script: INCRBY the window's count by `cost` (1 for a plain request; a
 * JSON-RPC batch to /mcp counts one per message), PEXPIRE a new window, and set a block key for
 * one window once the limit is passed. Atomic, so concurrent batches never half-count each other:
 * a batch that fits what is left passes whole, one that does not is refused whole. The caller
 * keeps cost ≤ limit. Keys and window are those of the library that counted plain hits before
 * (docs/dependencies.md), so counts carry across a deploy.
 */
const WEIGHTED_HIT = `
local hitKey = KEYS[1]
local blockKey = KEYS[2]
local ttl = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local blockDuration = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local totalHits = redis.call('INCRBY', hitKey, cost)
local timeToExpire = redis.call('PTTL', hitKey)
if timeToExpire <= 0 then
  redis.call('PEXPIRE', hitKey, ttl)
  timeToExpire = ttl
end
local isBlocked = redis.call('GET', blockKey)
local timeToBlockExpire = 0
if isBlocked then
  timeToBlockExpire = redis.call('PTTL', blockKey)
elseif totalHits > limit then
  redis.call('SET', blockKey, 1, 'PX', blockDuration)
  isBlocked = '1'
  timeToBlockExpire = blockDuration
end
if isBlocked and timeToBlockExpire <= 0 then
  redis.call('DEL', blockKey)
  redis.call('SET', hitKey, cost, 'PX', ttl)
  totalHits = cost
  timeToExpire = ttl
  isBlocked = false
end
return { totalHits, timeToExpire, isBlocked and 1 or 0, timeToBlockExpire }
`;

type HitScript = (
  hitKey: string,
  blockKey: string,
  ttlMs: number,
  limit: number,
  blockMs: number,
  cost: number,
) => Promise<[number, number, number, number]>;

/**
 * Registers the script on a connection (ioredis `defineCommand`): the script's text goes to Redis
 * once per connection, every later hit is EVALSHA with its digest, and the text goes again only if
 * Redis answers NOSCRIPT (after a restart or SCRIPT FLUSH).
 */
export function defineHit(redis: Redis): void {
  redis.defineCommand('rateLimitHit', { numberOfKeys: 2, lua: WEIGHTED_HIT });
}

/** Counts `cost` hits at once on `{key:throttlerName}:hits|blocked`; needs `defineHit` first. */
export async function incrementBy(
  redis: Redis,
  p: { key: string; ttlMs: number; limit: number; throttlerName: string; cost: number },
): Promise<WeightedHit> {
  const hitKey = `{${p.key}:${p.throttlerName}}:hits`;
  const blockKey = `{${p.key}:${p.throttlerName}}:blocked`;
  const hit = (redis as unknown as { rateLimitHit: HitScript }).rateLimitHit;
  const [totalHits, timeToExpire, isBlocked, timeToBlockExpire] = await hit.call(
    redis,
    hitKey,
    blockKey,
    p.ttlMs,
    p.limit,
    p.ttlMs,
    p.cost,
  );
  return {
    totalHits,
    timeToExpire: Math.ceil(timeToExpire / 1000),
    isBlocked: isBlocked === 1,
    timeToBlockExpire: Math.ceil(timeToBlockExpire / 1000),
  };
}
