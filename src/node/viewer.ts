import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { VIEWER_CSS } from '../viewer/style';

/** What the viewer page shows about its source (`GET /info`). */
export interface ViewerInfo {
  /** The input's format, once detected (`null` before). */
  format: string | null;
  workspace: string;
  session: string;
}

/** Options of {@link createViewerHandler}. */
export interface ViewerHandlerOptions {
  /** The session stream the page reads, a path on the same origin (`/workspaces/…/stream`). */
  stream: string;
  /** The facts `GET /info` answers with, asked per request (the format is detected late). */
  info: () => ViewerInfo;
  /** The page script. Default: `viewer.global.js` beside the built library (`dist/`). */
  script?: string;
}

/**
 * The page's Content-Security-Policy: scripts and styles from the same origin only (no inline
 * script or style, no eval), connections to the same origin only, no images, frames, forms or
 * plugins, and no framing by other pages.
 */
export const VIEWER_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'none'; " +
  "font-src 'none'; media-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'none'";

const COMMON = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
} as const;

function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function loadScript(): string {
  const candidates = [
    new URL('./viewer.global.js', import.meta.url),
    new URL('../../dist/viewer.global.js', import.meta.url),
  ];
  for (const url of candidates) {
    try {
      return readFileSync(url, 'utf8');
    } catch {
      // not built here: try the next place
    }
  }
  throw new Error('the viewer page script (dist/viewer.global.js) is missing: run `npm run build`');
}

/**
 * A `node:http` handler for the browser viewer: `GET /` (the page, with a strict
 * Content-Security-Policy), `/viewer.js`, `/viewer.css` and `/info` (the source's format and
 * ids). Resolves `false` for other requests. Put an access check (`createAccessGuard`) in front
 * of it and of the stream.
 */
export function createViewerHandler(
  options: ViewerHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  let script = options.script;
  const page = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>agentwire viewer</title>',
    `<meta name="agentwire-stream" content="${attribute(options.stream)}">`,
    '<link rel="stylesheet" href="/viewer.css">',
    '</head><body>',
    '<script src="/viewer.js"></script>',
    '</body></html>',
    '',
  ].join('\n');
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    let type: string;
    let body: string;
    switch (path) {
      case '/':
      case '/index.html':
        type = 'text/html; charset=utf-8';
        body = page;
        break;
      case '/viewer.js':
        script ??= loadScript();
        type = 'text/javascript; charset=utf-8';
        body = script;
        break;
      case '/viewer.css':
        type = 'text/css; charset=utf-8';
        body = VIEWER_CSS;
        break;
      case '/info':
        type = 'application/json; charset=utf-8';
        body = `${JSON.stringify(options.info())}\n`;
        break;
      default:
        return false;
    }
    res.writeHead(200, {
      ...COMMON,
      'content-type': type,
      'cache-control': 'no-store',
      'content-security-policy': VIEWER_CSP,
      'x-frame-options': 'DENY',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
