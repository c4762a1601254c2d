// Who the browser runs as, and with what. A renderer bug must not reach the worker's secrets: the browser
// gets an environment of its own (none of SECRETS_KEY, provider keys or the database URI, which the worker's
// holds), and when the worker is root it runs as `nobody` (setpriv drops the user, groups and every
// capability before Chromium starts; without root, Chromium's namespace sandbox would be all there is between
// a page and the machine). Its profile and temporary files live in a directory of its own, removed with it;
// one left behind by a worker that died (SIGKILL, a crash) is removed by the next browser started on the
// machine once its owner is gone.
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BrowserUser {
  /** The browser's profile (--user-data-dir), writable by the user it runs as. */
  profileDir: string;
  /** Its whole environment. */
  env: Record<string, string>;
  /** The command that starts `file args` as that user. */
  command(file: string, args: string[]): { file: string; args: string[] };
  remove(): Promise<void>;
}

/** Debian's (and most distributions') unprivileged user. */
export const NOBODY = { uid: 65534, gid: 65534 };
const SETPRIV = '/usr/bin/setpriv';
const PATH = '/usr/local/bin:/usr/bin:/bin';
/** Copied from the worker's environment when set: locale, time zone and fonts, never a credential. */
const PASSED = ['LANG', 'LC_ALL', 'TZ', 'FONTCONFIG_FILE', 'FONTCONFIG_PATH'];

const PROFILE_PREFIX = 'extract-browser-';
/** The worker that made a profile directory (its pid), written beside what the browser writes. */
const OWNER_FILE = 'owner.pid';
/** A directory without an owner file (made before there was one) is left alone for this long. */
const UNOWNED_GRACE_MS = 60 * 60 * 1000;

let swept: Promise<void> | null = null;

export async function browserUser(): Promise<BrowserUser> {
  const asRoot = process.getuid?.() === 0;
  if (asRoot && !existsSync(SETPRIV))
    throw new Error(
      `the worker runs as root and ${SETPRIV} (util-linux) is missing to start the browser as nobody`,
    );
  swept ??= sweepProfiles(tmpdir()).then(
    () => undefined,
    () => undefined,
  );
  await swept;
  const profileDir = await mkdtemp(join(tmpdir(), PROFILE_PREFIX));
  await writeFile(join(profileDir, OWNER_FILE), String(process.pid));
  const tmp = join(profileDir, 'tmp');
  await mkdir(tmp);
  if (asRoot) {
    await chown(profileDir, NOBODY.uid, NOBODY.gid);
    await chown(tmp, NOBODY.uid, NOBODY.gid);
  }
  return {
    profileDir,
    env: browserEnv(profileDir, tmp),
    command: (file, args) =>
      asRoot
        ? {
            file: SETPRIV,
            args: [
              `--reuid=${NOBODY.uid}`,
              `--regid=${NOBODY.gid}`,
              '--clear-groups',
              '--inh-caps=-all',
              '--bounding-set=-all',
              '--no-new-privs',
              '--',
              file,
              ...args,
            ],
          }
        : { file, args },
    remove: () => rm(profileDir, { recursive: true, force: true }).catch(() => undefined),
  };
}

function browserEnv(home: string, tmp: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH,
    HOME: home,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
  for (const name of PASSED) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Removes the browser profile directories under `dir` whose worker is no longer running: Chromium's profile,
 * cache and temporary files of a worker killed before it could remove them. A directory of a live worker
 * (on this machine, any worker: /tmp is shared) is left alone. Returns the directories removed.
 */
export async function sweepProfiles(dir: string, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    if (!name.startsWith(PROFILE_PREFIX)) continue;
    const path = join(dir, name);
    const owner = Number(await readFile(join(path, OWNER_FILE), 'utf8').catch(() => ''));
    const gone = owner > 0 ? !isRunning(owner) : now - (await stat(path)).mtimeMs > UNOWNED_GRACE_MS;
    if (!gone) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // running, as another user
  }
}
