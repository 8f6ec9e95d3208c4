/**
 * precompress: a Vite plugin that, after `vite build`, writes a gzip (.gz) and a Brotli (.br) copy beside every
 * compressible file of the output (JavaScript, CSS, HTML, SVG, JSON, YAML), so the server hands browsers the compressed
 * copy they accept (@fastify/static `preCompressed`) without compressing on each request. Uses Node's zlib at maximum
 * levels; files under 1 kB are left alone.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|ya?ml|txt|map)$/;
const MIN_BYTES = 1024;
const gz = promisify(gzip);
const br = promisify(brotliCompress);

async function* files(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else yield full;
  }
}

/** precompress returns the plugin; `outDir` is the build's output folder. */
export function precompress(outDir: string): Plugin {
  return {
    name: 'mailwright-precompress',
    apply: 'build',
    async closeBundle() {
      const jobs: Promise<void>[] = [];
      for await (const file of files(outDir)) {
        if (!COMPRESSIBLE.test(file)) continue;
        jobs.push(
          (async () => {
            const data = await readFile(file);
            if (data.length < MIN_BYTES) return;
            await writeFile(`${file}.gz`, await gz(data, { level: 9 }));
            await writeFile(
              `${file}.br`,
              await br(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }),
            );
          })(),
        );
      }
      await Promise.all(jobs);
    },
  };
}
