// The few things RedisSessionLog asks of a Redis client: raw commands, a second connection for
// blocking reads, and closing. Adapters for `ioredis` (what a `url` connects with) and the
// official `redis` client (node-redis), told apart by their methods, so the log works with
// whichever client the caller already has.

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
  connect?(): Promise<unknown>;
  status?: string;
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
      // A lazily connecting client (as connectUrl makes) connects its copies explicitly.
      if (copy.status === 'wait') await copy.connect?.();
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
 * Connects to `url` with the `ioredis` package (an optional peer dependency, loaded on first
 * use; measured faster than the `redis` package on the appends a producer waits for, see
 * docs/scaling.md): RESP2, reconnecting forever, no offline queue and no resending, so a
 * command sent while the server is away, or in flight when it went, fails at once and the
 * log's own retry decides.
 */
export async function connectUrl(url: string, onError: (error: Error) => void): Promise<RedisConnection> {
  let Redis: typeof import('ioredis').default;
  try {
    Redis = (await import('ioredis')).default;
  } catch (error) {
    throw new TypeError(
      `agentwire/redis needs the \`ioredis\` package (npm install ioredis): ${(error as Error).message}`,
    );
  }
  const client = new Redis(url, {
    protocol: 2,
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    // Commands in flight when the connection drops reject at once (not after reconnecting).
    maxRetriesPerRequest: 0,
    retryStrategy: reconnectDelay,
  });
  client.on('error', onError);
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return ioRedis(client as unknown as IoRedisClientLike, onError);
}
