// The few things RedisSessionLog asks of a Redis client: raw commands, a second connection for
// blocking reads, and closing. Adapters for the official `redis` client (node-redis) and
// `ioredis`, told apart by their methods, so the log works with whichever the caller has.

/** A Redis connection as the session log uses it. */
export interface RedisConnection {
  /** Sends one command (`['XADD', key, …]`); resolves to the reply. */
  send(args: readonly string[]): Promise<unknown>;
  /** A new connection to the same server (blocking reads get their own). */
  duplicate(): Promise<RedisConnection>;
  /** Closes the connection at once; commands in flight reject. */
  close(): Promise<void>;
}

/** A node-redis client (`createClient()` of the `redis` package), as far as the log uses it. */
export interface NodeRedisClientLike {
  sendCommand(args: string[]): Promise<unknown>;
  duplicate(): NodeRedisClientLike;
  connect(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  destroy?(): unknown;
  disconnect?(): unknown;
  isOpen?: boolean;
}

/** An ioredis client (`new Redis()`), as far as the log uses it. */
export interface IoRedisClientLike {
  call(command: string, ...args: string[]): Promise<unknown>;
  duplicate(): IoRedisClientLike;
  on(event: 'error', listener: (error: Error) => void): unknown;
  disconnect(): unknown;
}

/** Either client. */
export type RedisClientLike = NodeRedisClientLike | IoRedisClientLike;

// ioredis has a `sendCommand` too (taking a Command object): `call` tells them apart.
const isNodeRedis = (c: RedisClientLike): c is NodeRedisClientLike =>
  typeof (c as IoRedisClientLike).call !== 'function';

function nodeRedis(client: NodeRedisClientLike, onError: (error: Error) => void): RedisConnection {
  return {
    send: (args) => client.sendCommand([...args]),
    duplicate: async () => {
      const copy = client.duplicate();
      copy.on('error', onError);
      await copy.connect();
      return nodeRedis(copy, onError);
    },
    close: async () => {
      if (client.destroy !== undefined) client.destroy();
      else client.disconnect?.();
    },
  };
}

function ioRedis(client: IoRedisClientLike, onError: (error: Error) => void): RedisConnection {
  return {
    send: ([command, ...args]) => client.call(command!, ...args),
    duplicate: async () => {
      const copy = client.duplicate();
      copy.on('error', onError);
      return ioRedis(copy, onError);
    },
    close: async () => {
      client.disconnect();
    },
  };
}

/**
 * Wraps a caller's client (node-redis or ioredis). Its own settings (reconnection, offline
 * queue, RESP version) stay the caller's; connections the log duplicates from it report their
 * errors to `onError`.
 */
export function fromClient(client: RedisClientLike, onError: (error: Error) => void): RedisConnection {
  return isNodeRedis(client) ? nodeRedis(client, onError) : ioRedis(client, onError);
}

// A reconnect wait that grows to a cap, so a restarting server is found again quickly.
const reconnectDelay = (attempt: number): number => Math.min(50 * 2 ** attempt, 2000);

/**
 * Connects to `url` with the `redis` package (an optional peer dependency, loaded on first
 * use): RESP2, reconnecting forever, and no offline queue, so a command sent while the server is
 * away fails at once and the log's own retry decides what happens.
 */
export async function connectUrl(url: string, onError: (error: Error) => void): Promise<RedisConnection> {
  let redis: typeof import('redis');
  try {
    redis = await import('redis');
  } catch (error) {
    throw new Error(
      `agentwire/redis needs the \`redis\` package (npm install redis): ${(error as Error).message}`,
    );
  }
  const client = redis.createClient({
    url,
    RESP: 2,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: reconnectDelay },
  }) as unknown as NodeRedisClientLike;
  client.on('error', onError);
  await client.connect();
  return nodeRedis(client, onError);
}
