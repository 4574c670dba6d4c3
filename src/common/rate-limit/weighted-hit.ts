import type Redis from 'ioredis';

/** What the library's ThrottlerStorage.increment answers (times in whole seconds). */
export interface WeightedHit {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/**
 * @nest-lab/throttler-storage-redis's hit script with INCRBY for INCR: one atomic step counts a
 * request as `cost` requests (a JSON-RPC batch to /mcp, one per message), on the same keys and
 * with the same fixed window and block as the library's own hits, so weighted and plain requests
 * share one budget. Atomic, so concurrent batches never half-count each other: a batch that fits
 * what is left passes whole, one that does not is refused whole. The caller keeps cost ≤ limit.
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

/** ThrottlerStorage.increment for `cost` hits at once; key and throttlerName as the library's. */
export async function incrementBy(
  redis: Redis,
  p: { key: string; ttlMs: number; limit: number; throttlerName: string; cost: number },
): Promise<WeightedHit> {
  const hitKey = `{${p.key}:${p.throttlerName}}:hits`;
  const blockKey = `{${p.key}:${p.throttlerName}}:blocked`;
  const [totalHits, timeToExpire, isBlocked, timeToBlockExpire] = (await redis.eval(
    WEIGHTED_HIT,
    2,
    hitKey,
    blockKey,
    p.ttlMs,
    p.limit,
    p.ttlMs,
    p.cost,
  )) as [number, number, number, number];
  return {
    totalHits,
    timeToExpire: Math.ceil(timeToExpire / 1000),
    isBlocked: isBlocked === 1,
    timeToBlockExpire: Math.ceil(timeToBlockExpire / 1000),
  };
}
