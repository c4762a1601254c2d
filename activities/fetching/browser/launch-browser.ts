// Starting and stopping one Chromium process: the flags, the proxy it must use, and a stop that leaves no
// process behind even when the browser hangs. The browser runs in its sandbox, as an unprivileged user when
// the worker is root (browser-user.ts), with an environment of its own that holds no secret of the worker's.
import puppeteer, { type Browser, type BrowserContext } from 'puppeteer-core';
import { CategorizedError } from '../../../shared/errors.js';
import { currentActivity } from '../../common/activity-context.js';
import { type BrowserUser, browserUser } from './browser-user.js';

/** Flags for a headless browser on a server: no calls home, no QUIC, no GPU. */
export const CHROMIUM_FLAGS = [
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

/** Whether this kernel let the last launch sandbox the browser; false once a launch had to go without. */
let sandboxWorks = true;

export async function launchBrowser(
  executablePath: string,
  proxyUrl: string,
  timeoutMs: number,
): Promise<Browser> {
  // Loopback too goes through the proxy (Chromium bypasses proxies for it unless told otherwise).
  const flags = [...CHROMIUM_FLAGS, `--proxy-server=${proxyUrl}`, '--proxy-bypass-list=<-loopback>'];
  let user: BrowserUser | undefined;
  try {
    user = await browserUser();
    if (sandboxWorks) {
      try {
        return await start(executablePath, flags, user, timeoutMs);
      } catch (err) {
        if (!/sandbox|namespace/i.test(errorText(err))) throw err;
        sandboxWorks = false;
        const log = currentActivity()?.log ?? console;
        log.warn(
          'Chromium cannot use its sandbox on this kernel (no unprivileged user namespaces); it runs without, ' +
            'still as an unprivileged user with an environment of its own',
          { error: errorText(err).slice(0, 500) },
        );
      }
    }
    return await start(executablePath, [...flags, '--no-sandbox'], user, timeoutMs);
  } catch (err) {
    await user?.remove();
    throw new CategorizedError('fetch_error', `the browser could not start: ${errorText(err)}`, true, {
      reason: 'browser_unavailable',
    });
  }
}

async function start(
  executablePath: string,
  flags: string[],
  user: BrowserUser,
  timeoutMs: number,
): Promise<Browser> {
  // The profile is the user's own directory (puppeteer's temporary one would be root's). Chromium's popup
  // blocker stays on: a page's script opens no window without a user gesture (target-guard.ts has the rest).
  const args = puppeteer
    .defaultArgs({ headless: true, args: flags, userDataDir: user.profileDir })
    .filter((arg) => arg !== '--disable-popup-blocking');
  const command = user.command(executablePath, args);
  const browser = await puppeteer.launch({
    executablePath: command.file,
    args: command.args,
    ignoreDefaultArgs: true, // they are in args already, after the command that drops privileges
    userDataDir: user.profileDir,
    env: user.env,
    headless: true,
    pipe: true, // no debugging port; the browser also exits when the worker dies and the pipe closes
    handleSIGINT: false, // the worker decides when to stop, then closes the pool
    handleSIGTERM: false,
    handleSIGHUP: false,
    timeout: timeoutMs,
    protocolTimeout: 60_000,
    defaultViewport: { width: 1280, height: 900 },
  });
  browser.process()?.once('exit', () => void user.remove());
  return browser;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

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
