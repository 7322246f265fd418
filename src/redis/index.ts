// agentwire/redis: the session log on Redis Streams, so several processes serve one session
// (Node-only; `ioredis` is an optional peer dependency, and a node-redis client works too).

export type { SessionFollower, SessionLog, SessionSnapshot } from '../node/session-log';
export type { IoRedisClientLike, NodeRedisClientLike, RedisClientLike, RedisConnection } from './connection';
export { RedisLogError, type RedisLogErrorCode, RedisSessionLog, type RedisSessionLogOptions } from './log';
