// Starts the embedded infrastructure (FerretDB + Temporal dev server) on free ports, for tests and
// benchmarks. `npm start` uses fixed ports instead (scripts/start.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ferretDbUri, startFerretDb, startTemporal } from './infra.js';
import { freePort } from './ports.js';
import type { Child } from './processes.js';

export interface Infra {
  mongoUri: string;
  temporalAddress: string;
  dataDir: string;
  /** Restarts the Temporal dev server on the same port and data (durability tests). */
  restartTemporal(): Promise<void>;
  stop(): Promise<void>;
}

export async function startInfra(opts: { quiet?: boolean; dataDir?: string } = {}): Promise<Infra> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'extract-infra-'));
  const quiet = opts.quiet ?? true;
  const mongoPort = await freePort();
  const temporalPort = await freePort([10, 20]);
  const [ferret, temporalChild] = await Promise.all([
    startFerretDb({ dataDir, port: mongoPort, quiet }),
    startTemporal({ dataDir, port: temporalPort, uiPort: 0, quiet }),
  ]);
  let temporal: Child = temporalChild;
  return {
    mongoUri: ferretDbUri(dataDir, mongoPort),
    temporalAddress: `127.0.0.1:${temporalPort}`,
    dataDir,
    async restartTemporal() {
      await temporal.stop();
      temporal = await startTemporal({ dataDir, port: temporalPort, uiPort: 0, quiet });
    },
    async stop() {
      await Promise.all([temporal.stop(), ferret.stop()]);
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
