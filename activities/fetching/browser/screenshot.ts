// Screenshots of a rendered page (the screenshot action and formats: ["screenshot"]): a PNG of the viewport or
// of the whole page cut at MAX_SCREENSHOT_HEIGHT, refused past MAX_SCREENSHOT_BYTES. The image stays in the
// activity and goes to the content store (shared/store/screenshots.ts); only its size travels on.
import type { Page } from 'puppeteer-core';
import { CategorizedError } from '../../../shared/errors.js';
import {
  MAX_SCREENSHOT_BYTES,
  MAX_SCREENSHOT_HEIGHT,
  type ScreenshotInfo,
} from '../../../shared/schemas/actions.js';

export interface Screenshot {
  info: ScreenshotInfo;
  png: Buffer;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR chunk (the first chunk, right after the signature); null if not a PNG. */
export function pngSize(png: Buffer): { width: number; height: number } | null {
  if (png.length < 24 || !png.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  if (png.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

export async function takeScreenshot(page: Page, fullPage: boolean, index: number): Promise<Screenshot> {
  const viewport = page.viewport() ?? { width: 1280, height: 900 };
  let clipped = false;
  let shot: Uint8Array;
  if (fullPage) {
    const height = await page.evaluate(() =>
      Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0),
    );
    clipped = height > MAX_SCREENSHOT_HEIGHT;
    // The viewport's width (a page wider than it is cut too); its height up to the bound.
    const clip = {
      x: 0,
      y: 0,
      width: viewport.width,
      height: Math.max(1, Math.min(height, MAX_SCREENSHOT_HEIGHT)),
    };
    shot = await page.screenshot({ type: 'png', clip, captureBeyondViewport: true });
  } else {
    shot = await page.screenshot({ type: 'png' });
  }
  const png = Buffer.from(shot);
  if (png.length > MAX_SCREENSHOT_BYTES) {
    throw new CategorizedError(
      'content_too_large',
      `screenshot ${index} is ${png.length} bytes, more than the ${MAX_SCREENSHOT_BYTES} bytes allowed`,
      false,
      { bytes: png.length, maxBytes: MAX_SCREENSHOT_BYTES },
    );
  }
  const size = pngSize(png) ?? { width: 0, height: 0 };
  return { png, info: { index, ...size, bytes: png.length, full_page: fullPage, clipped } };
}
