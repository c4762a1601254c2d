// Starting and stopping one Chromium process: the flags, the proxy it must use, and a stop that leaves no
// process behind even when the browser hangs.
import puppeteer, { type Browser, type BrowserContext } from 'puppeteer-core';
import { CategorizedError } from '../../shared/errors.js';

/** Flags for a headless browser on a server: no sandbox (root in a container), no calls home, no QUIC. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-gpu',
  '--disable-quic',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--mute-audio',
  // WebRTC would otherwise send UDP around the proxy.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

const CLOSE_TIMEOUT_MS = 5_000;

export async function launchBrowser(
  executablePath: string,
  proxyUrl: string,
  timeoutMs: number,
): Promise<Browser> {
  try {
    return await puppeteer.launch({
      executablePath,
      headless: true,
      pipe: true, // no debugging port; the browser also exits when the worker dies and the pipe closes
      handleSIGINT: false, // the worker decides when to stop, then closes the pool
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: timeoutMs,
      protocolTimeout: 60_000,
      defaultViewport: { width: 1280, height: 900 },
      // Loopback too goes through the proxy (Chromium bypasses proxies for it unless told otherwise).
      args: [...CHROMIUM_FLAGS, `--proxy-server=${proxyUrl}`, '--proxy-bypass-list=<-loopback>'],
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new CategorizedError('fetch_error', `the browser could not start: ${message}`, true, {
      reason: 'browser_unavailable',
    });
  }
}

/** A new incognito context of the browser: its own cookies, storage and cache; downloads refused. */
export function isolatedContext(browser: Browser): Promise<BrowserContext> {
  return browser.createBrowserContext({ downloadBehavior: { policy: 'deny' } });
}

/** Closes the browser; one that hangs or is already gone has its whole process group killed instead. */
export async function stopBrowser(browser: Browser): Promise<void> {
  const proc = browser.process();
  try {
    await withTimeout(browser.close(), CLOSE_TIMEOUT_MS);
  } catch {
    killProcessGroup(proc);
  }
}

/** Kills a browser's process group (it leads its own), unless it has exited. */
export function killProcessGroup(proc: ReturnType<Browser['process']>): void {
  if (proc?.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    proc.kill('SIGKILL');
  }
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
