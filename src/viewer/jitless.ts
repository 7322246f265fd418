import * as z from 'zod/mini';

/**
 * zod's configuration with `jitless` on, set when this module is evaluated: the page script
 * imports it first, before any schema is built. zod generates validators with `new Function`
 * where it may; under the page's CSP it may not (even trying is reported as a violation).
 * Runtime parsing gives the same results.
 */
export const ZOD_CONFIG: ReturnType<typeof z.config> = z.config({ jitless: true });
