/** A running test redis-server. */
export interface TestRedis {
  port: number;
  url: string;
  dir: string;
  kill(signal?: NodeJS.Signals): Promise<void>;
  restart(): Promise<void>;
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}
/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number>;
/** Starts redis-server on 127.0.0.1 with its own temporary directory. */
export function startRedis(options?: {
  appendonly?: boolean;
  appendfsync?: 'always' | 'everysec' | 'no';
  port?: number;
  dir?: string;
}): Promise<TestRedis>;
