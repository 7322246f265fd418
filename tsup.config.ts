import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      hep: 'src/formats/hep/index.ts',
      highbar: 'src/formats/highbar/index.ts',
      nativeharness: 'src/formats/nativeharness/index.ts',
      codex: 'src/formats/codex/index.ts',
      opencode: 'src/formats/opencode/index.ts',
      cursor: 'src/formats/cursor/index.ts',
      otel: 'src/otel/index.ts',
      gemini: 'src/formats/gemini/index.ts',
      amp: 'src/formats/amp/index.ts',
      copilot: 'src/formats/copilot/index.ts',
      node: 'src/node/index.ts',
      fixtures: 'src/node/fixtures.ts',
    },
    // Node-only entries import node: built-ins; the core entries import none.
    external: [/^node:/],
    // import.meta.url for the fixture kit in the CommonJS build.
    shims: true,
    format: ['esm', 'cjs'],
    dts: true,
    // One shared chunk per format graph, so `instanceof AgentwireError` holds across entry points.
    splitting: true,
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
    banner: { js: '#!/usr/bin/env node' },
  },
]);
