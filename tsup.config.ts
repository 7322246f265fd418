import type { Plugin } from 'esbuild';
import { defineConfig } from 'tsup';

// The CLI imports the library through its public entry points; in the build those imports stay
// imports of the built entries next to it, so dist/cli.js holds the command line only and runs
// on the same modules (and the same AgentwireError class) as `import 'agentwire'`.
const cliUsesLibrary: Plugin = {
  name: 'cli-uses-library',
  setup(build) {
    const entries: Record<string, string> = {
      './index': './index.js',
      './engine': './engine.js',
      './node/index': './node.js',
      './redis/index': './redis.js',
      './otel/index': './otel.js',
    };
    build.onResolve({ filter: /^\.\/(index|engine|node\/index|redis\/index|otel\/index)$/ }, (args) =>
      args.importer.endsWith('cli.ts') ? { path: entries[args.path]!, external: true } : undefined,
    );
  },
};

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      // Every codec and conversion by format id (src/all.ts): the `agentwire` entry bundles none.
      all: 'src/all.ts',
      // The CLI's own entry: the library without the zod schemas (src/engine.ts).
      engine: 'src/engine.ts',
      hep: 'src/formats/hep/index.ts',
      highbar: 'src/formats/highbar/index.ts',
      nativeharness: 'src/formats/nativeharness/index.ts',
      codex: 'src/formats/codex/index.ts',
      claude: 'src/formats/claude/index.ts',
      opencode: 'src/formats/opencode/index.ts',
      cursor: 'src/formats/cursor/index.ts',
      otel: 'src/otel/index.ts',
      gemini: 'src/formats/gemini/index.ts',
      amp: 'src/formats/amp/index.ts',
      copilot: 'src/formats/copilot/index.ts',
      'ag-ui': 'src/formats/ag-ui/index.ts',
      'ai-sdk': 'src/formats/ai-sdk/index.ts',
      node: 'src/node/index.ts',
      fixtures: 'src/node/fixtures.ts',
      redis: 'src/redis/index.ts',
    },
    // Node-only entries import node: built-ins; the core entries import none.
    external: [/^node:/],
    // import.meta.url for the fixture kit in the CommonJS build.
    shims: true,
    format: ['esm', 'cjs'],
    dts: true,
    // One shared chunk per format graph, so `instanceof AgentwireError` holds across entry points.
    splitting: true,
    // Node-only files keep their `node:` imports (tsup strips the prefix by default).
    removeNodeProtocol: false,
    clean: true,
    target: 'es2022',
    platform: 'neutral',
    treeshake: true,
  },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    dts: false,
    splitting: false,
    clean: false,
    target: 'es2022',
    platform: 'node',
    removeNodeProtocol: false,
    esbuildPlugins: [cliUsesLibrary],
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    // The browser viewer's page script (served by `agentwire serve` at /viewer.js).
    entry: { viewer: 'src/viewer/main.ts' },
    format: ['iife'],
    dts: false,
    splitting: false,
    clean: false,
    target: 'es2022',
    platform: 'browser',
    minify: true,
  },
]);
