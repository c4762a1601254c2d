// Browser profile directories left behind by a worker that died are removed; those of running workers, and
// new ones not yet claimed, are kept.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { sweepProfiles } from '../../activities/fetching/browser/browser-user.js';

const root = await mkdtemp(join(tmpdir(), 'profiles-test-'));
after(() => rm(root, { recursive: true, force: true }));

async function profile(name: string, owner?: number): Promise<string> {
  const dir = join(root, `extract-browser-${name}`);
  await mkdir(join(dir, 'Default'), { recursive: true });
  await writeFile(join(dir, 'Default', 'Cookies'), 'x');
  if (owner !== undefined) await writeFile(join(dir, 'owner.pid'), String(owner));
  return dir;
}

test('profiles of dead workers go; those of live workers, unclaimed new ones and other folders stay', async () => {
  // The pid of a process that has exited.
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  assert.ok(dead > 0);
  const ofDead = await profile('dead', dead);
  const ofLive = await profile('live', process.pid);
  const fresh = await profile('fresh');
  const old = await profile('old');
  const longAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
  await utimes(old, longAgo, longAgo);
  const other = join(root, 'something-else');
  await mkdir(other);

  const removed = await sweepProfiles(root);
  assert.deepEqual(removed.sort(), [ofDead, old].sort());
  assert.equal(existsSync(ofDead), false);
  assert.equal(existsSync(old), false);
  for (const kept of [ofLive, fresh, other]) assert.ok(existsSync(kept), `${kept} was removed`);
});
