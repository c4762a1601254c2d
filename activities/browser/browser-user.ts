// Who the browser runs as, and with what. A renderer bug must not reach the worker's secrets: the browser
// gets an environment of its own (none of SECRETS_KEY, provider keys or the database URI, which the worker's
// holds), and when the worker is root it runs as `nobody` (setpriv drops the user, groups and every
// capability before Chromium starts; without root, Chromium's namespace sandbox would be all there is between
// a page and the machine). Its profile and temporary files live in a directory of its own, removed with it.
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
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

export async function browserUser(): Promise<BrowserUser> {
  const asRoot = process.getuid?.() === 0;
  if (asRoot && !existsSync(SETPRIV))
    throw new Error(
      `the worker runs as root and ${SETPRIV} (util-linux) is missing to start the browser as nobody`,
    );
  const profileDir = await mkdtemp(join(tmpdir(), 'extract-browser-'));
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
