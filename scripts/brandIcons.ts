/**
 * `npx tsx scripts/brandIcons.ts`: writes the brand's files into public/ from src/console/public/brand.ts — the mark
 * and the wordmark (brand/mark.svg, brand/wordmark.svg), favicon.svg, favicon.ico (PNG images of 16, 32 and 48 px in
 * an ICO container), apple-touch-icon.png (180 px, full bleed), the web manifest's icons (icon-192.png, icon-512.png,
 * and icon-maskable-512.png with the mark inside the safe zone) and site.webmanifest. The PNGs are drawn by Debian's
 * chromium (tests/helpers/browser.ts), so nothing but the repository's own packages is needed. Commit what it writes.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { launchChromium } from '../tests/helpers/browser.ts';
import { ROOT } from '../tests/helpers/processes.ts';
import { BRAND_COLOR, markSvg, wordmarkSvg } from '../src/console/public/brand.ts';

const PUBLIC = path.join(ROOT, 'public');

/**
 * icoFile packs PNG images (each `size` px square, at most 256) into one .ico: the ICONDIR header, one 16-byte entry per
 * image, then the images. Windows Vista and every browser read PNG-compressed entries.
 */
function icoFile(images: Array<{ size: number; png: Buffer }>): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // 1 = icon
  header.writeUInt16LE(images.length, 4);
  let offset = 6 + 16 * images.length;
  const entries = images.map(({ size, png }) => {
    const entry = Buffer.alloc(16);
    entry.writeUInt8(size >= 256 ? 0 : size, 0); // width (0 means 256)
    entry.writeUInt8(size >= 256 ? 0 : size, 1); // height
    entry.writeUInt8(0, 2); // no palette
    entry.writeUInt8(0, 3); // reserved
    entry.writeUInt16LE(1, 4); // colour planes
    entry.writeUInt16LE(32, 6); // bits per pixel
    entry.writeUInt32LE(png.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += png.length;
    return entry;
  });
  return Buffer.concat([header, ...entries, ...images.map((i) => i.png)]);
}

async function main(): Promise<void> {
  await mkdir(path.join(PUBLIC, 'brand'), { recursive: true });
  const mark = markSvg();
  await writeFile(path.join(PUBLIC, 'brand/mark.svg'), `${mark}\n`);
  await writeFile(path.join(PUBLIC, 'brand/wordmark.svg'), `${wordmarkSvg()}\n`);
  await writeFile(path.join(PUBLIC, 'favicon.svg'), `${mark}\n`);

  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 600, height: 600 }, deviceScaleFactor: 1 });
    /** png draws `svg` at `size` px square on a transparent background. */
    const png = async (svg: string, size: number): Promise<Buffer> => {
      const sized = svg.replace('width="64" height="64"', `width="${size}" height="${size}"`);
      await page.setContent(`<!doctype html><html><body style="margin:0;background:transparent">${sized}</body></html>`);
      return page.locator('svg').screenshot({ omitBackground: true, type: 'png' });
    };
    const small: Array<{ size: number; png: Buffer }> = [];
    for (const size of [16, 32, 48]) small.push({ size, png: await png(mark, size) }); // one page: one at a time
    await writeFile(path.join(PUBLIC, 'favicon.ico'), icoFile(small));
    await writeFile(path.join(PUBLIC, 'apple-touch-icon.png'), await png(markSvg({ bleed: true, inset: 0.12 }), 180));
    await writeFile(path.join(PUBLIC, 'icon-192.png'), await png(mark, 192));
    await writeFile(path.join(PUBLIC, 'icon-512.png'), await png(mark, 512));
    // A maskable icon's safe zone is the centre circle of 80 % of its width: the envelope is shrunk into it.
    await writeFile(path.join(PUBLIC, 'icon-maskable-512.png'), await png(markSvg({ bleed: true, inset: 0.2 }), 512));
  } finally {
    await browser.close();
  }

  const manifest = {
    name: 'Mailwright',
    short_name: 'Mailwright',
    description: 'Email marketing and transactional email, priced by the send.',
    start_url: '/',
    display: 'standalone',
    background_color: '#ffffff',
    theme_color: BRAND_COLOR,
    icons: [
      { src: '/icon-192.png', sizes: '192x192', type: 'image/png' },
      { src: '/icon-512.png', sizes: '512x512', type: 'image/png' },
      { src: '/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
    ],
  };
  await writeFile(path.join(PUBLIC, 'site.webmanifest'), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log('wrote public/brand/mark.svg, brand/wordmark.svg, favicon.svg, favicon.ico, apple-touch-icon.png, icon-*.png, site.webmanifest');
}

await main();
