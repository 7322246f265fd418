import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Options of {@link createAccessGuard}. */
export interface AccessGuardOptions {
  /** The port the server listens on: the only port a `Host` header may name. */
  port: number;
  /**
   * The address the server listens on. A loopback address (`127.0.0.1`, `::1`, `localhost`)
   * needs no token; any other address needs `token` (the guard refuses to be made without one).
   */
  host?: string;
  /**
   * The shared secret every request must present: `Authorization: Bearer TOKEN` (programs) or
   * the cookie a browser gets by opening the page once with `?token=TOKEN`.
   */
  token?: string;
  /** The one origin that may read responses cross-origin (CORS). Absent: no CORS headers at all. */
  cors?: string;
  /**
   * Further `Host` values (`name:port`) accepted, e.g. a proxy's public name. Without a token
   * only the loopback names and the listening address are accepted; with a token and no list,
   * any `Host` is (behind a proxy the name is the proxy's; the token is the guard there).
   */
  allowedHosts?: readonly string[];
}

/** What {@link AccessGuard.check} decided. */
export type AccessDecision = 'allowed' | 'answered';

/** The request gate of `agentwire serve` (DNS rebinding, token, CORS). */
export interface AccessGuard {
  /**
   * Checks one request and, when it may not go on (or was fully answered: a CORS preflight, the
   * token trade), writes the response itself and returns `'answered'`. Error responses carry a
   * short JSON error and nothing of any stream.
   */
  check(request: IncomingMessage, response: ServerResponse): AccessDecision;
  /**
   * Whether the request presents the token (always true without one): usable as the `authorize`
   * hook of `createSseHandler`.
   */
  authorize(request: IncomingMessage): boolean;
}

/** The cookie a browser holds after trading `?token=`. */
export const TOKEN_COOKIE = 'agentwire_session';

/** The environment variable `agentwire serve` reads the token from when `--token` is absent. */
export const TOKEN_ENV = 'AGENTWIRE_TOKEN';

const LOOPBACK = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);

/** Whether an address is loopback (where no token is needed). */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);
}

// Digests of equal length, so comparing them takes the same time whatever the lengths of the
// presented and the expected secret (timingSafeEqual alone throws on different lengths).
function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function sameSecret(presented: string, expectedDigest: Buffer): boolean {
  return timingSafeEqual(digest(presented), expectedDigest);
}

function header(request: IncomingMessage, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function cookieValue(request: IncomingMessage, name: string): string | undefined {
  const raw = header(request, 'cookie');
  if (raw === undefined) return undefined;
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function refuse(
  response: ServerResponse,
  status: number,
  error: string,
  extra?: Record<string, string>,
): void {
  const body = `${JSON.stringify({ error })}\n`;
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...extra,
  });
  response.end(body);
}

/**
 * The gate in front of every route of `agentwire serve`:
 * - without a token, the `Host` header must name the server itself (a loopback name and its
 *   port, or the `host` it listens on): anything else is refused with 421, which defeats DNS
 *   rebinding (a foreign page whose name resolves to 127.0.0.1 still sends its own name);
 * - with a `token`, every request presents it, compared in constant time: `Authorization:
 *   Bearer TOKEN`, or the `HttpOnly; SameSite=Strict` cookie a browser gets by opening any page
 *   once with `?token=TOKEN` (answered with a redirect to the same address without the token,
 *   so it leaves the address bar and history); refused with 401 otherwise;
 * - CORS headers only for the one `cors` origin (preflights answered for it alone).
 */
export function createAccessGuard(options: AccessGuardOptions): AccessGuard {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host) && (options.token === undefined || options.token === '')) {
    throw new Error(`listening on ${host} (beyond loopback) needs a token (--token or ${TOKEN_ENV})`);
  }
  const token = options.token === '' ? undefined : options.token;
  const tokenDigest = token === undefined ? undefined : digest(token);
  // The cookie holds a value derived from the token, never the token itself.
  const cookie =
    token === undefined ? undefined : createHmac('sha256', token).update('agentwire viewer').digest('hex');
  const cookieDigest = cookie === undefined ? undefined : digest(cookie);
  const hosts = new Set<string>();
  for (const name of ['127.0.0.1', 'localhost', '[::1]', host.includes(':') ? `[${host}]` : host]) {
    hosts.add(`${name.toLowerCase()}:${options.port}`);
  }
  for (const name of options.allowedHosts ?? []) hosts.add(name.toLowerCase());
  const anyHost = token !== undefined && options.allowedHosts === undefined;

  const authorize = (request: IncomingMessage): boolean => {
    if (tokenDigest === undefined || cookieDigest === undefined) return true;
    const auth = header(request, 'authorization');
    if (auth !== undefined && /^Bearer /i.test(auth)) return sameSecret(auth.slice(7).trim(), tokenDigest);
    const presented = cookieValue(request, TOKEN_COOKIE);
    return presented !== undefined && sameSecret(presented, cookieDigest);
  };

  const check = (request: IncomingMessage, response: ServerResponse): AccessDecision => {
    const hostHeader = header(request, 'host')?.toLowerCase();
    if (hostHeader === undefined || (!anyHost && !hosts.has(hostHeader))) {
      refuse(response, 421, 'misdirected_request');
      return 'answered';
    }
    const origin = header(request, 'origin');
    const corsHeaders: Record<string, string> =
      options.cors !== undefined && origin === options.cors
        ? {
            'access-control-allow-origin': options.cors,
            'access-control-allow-credentials': 'true',
            vary: 'Origin',
          }
        : {};
    for (const [k, v] of Object.entries(corsHeaders)) response.setHeader(k, v);
    if (request.method === 'OPTIONS') {
      if (corsHeaders['access-control-allow-origin'] === undefined) {
        refuse(response, 403, 'forbidden');
        return 'answered';
      }
      response.writeHead(204, {
        // POST with a JSON body: how useChat and AG-UI's HttpAgent call `serve --as`'s stream.
        'access-control-allow-methods': 'GET, HEAD, POST',
        'access-control-allow-headers': 'Authorization, Last-Event-ID, Cache-Control, Accept, Content-Type',
        'access-control-max-age': '600',
      });
      response.end();
      return 'answered';
    }
    const url = new URL(request.url ?? '/', 'http://localhost');
    const offered = url.searchParams.get('token');
    if (offered !== null && tokenDigest !== undefined && cookie !== undefined) {
      if (!sameSecret(offered, tokenDigest)) {
        refuse(response, 401, 'unauthorized', { 'www-authenticate': 'Bearer' });
        return 'answered';
      }
      url.searchParams.delete('token');
      const rest = url.searchParams.toString();
      response.writeHead(303, {
        location: `${url.pathname}${rest === '' ? '' : `?${rest}`}`,
        'set-cookie': `${TOKEN_COOKIE}=${cookie}; HttpOnly; SameSite=Strict; Path=/`,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      });
      response.end();
      return 'answered';
    }
    if (!authorize(request)) {
      refuse(response, 401, 'unauthorized', { 'www-authenticate': 'Bearer' });
      return 'answered';
    }
    return 'allowed';
  };

  return { check, authorize };
}
