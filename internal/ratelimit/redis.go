package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a Limiter shared by every instance that uses the same Redis server. The decision runs
// in one script, on the server's clock, so that instances with skewed clocks agree.
type Redis struct {
	client *redis.Client
	prefix string
}

// NewRedis connects to the Redis server at url (redis://, rediss:// or unix://).
func NewRedis(ctx context.Context, url string) (*Redis, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	c := redis.NewClient(opts)
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("connecting to Redis: %w", err)
	}
	return &Redis{client: c, prefix: "credentiald:ratelimit:"}, nil
}

// Close closes the connection pool.
func (r *Redis) Close() error { return r.client.Close() }

// gcraScript is gcra() on the server: KEYS[1] holds the tat in microseconds; ARGV are the
// emission interval and the period in microseconds. It answers {allowed, retry_after_us,
// ahead_us}, where ahead is how far the (new) tat lies ahead of now.
var gcraScript = redis.NewScript(`
local interval = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local nextTat = tat + interval
local allowAt = nextTat - period
if now < allowAt then
  return {0, allowAt - now, tat - now}
end
redis.call('SET', KEYS[1], string.format('%d', nextTat), 'PX', math.ceil((nextTat - now) / 1000) + 1)
return {1, 0, nextTat - now}
`)

// Take implements Limiter.
func (r *Redis) Take(ctx context.Context, l Limit, key string) (Result, error) {
	v, err := gcraScript.Run(ctx, r.client, []string{r.prefix + l.Name + ":" + key},
		l.interval().Microseconds(), l.Period.Microseconds()).Int64Slice()
	if err != nil {
		return Result{}, fmt.Errorf("rate limit %s: %w", l.Name, err)
	}
	if len(v) != 3 {
		return Result{}, fmt.Errorf("rate limit %s: unexpected answer %v", l.Name, v)
	}
	ahead := time.Duration(v[2]) * time.Microsecond
	if v[0] == 0 {
		return Result{Limit: l, Allowed: false, Reset: ahead, RetryAfter: time.Duration(v[1]) * time.Microsecond}, nil
	}
	return resultAfter(l, ahead), nil
}
