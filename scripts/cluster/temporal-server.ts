// The cluster's real Temporal server (not the CLI's dev server): built from Go modules
// (scripts/cluster/install-temporal-server.sh), its schema set up on PostgreSQL by Temporal's own
// temporal-sql-tool, its configuration rendered from temporal-config/cluster.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { SEARCH_ATTRIBUTES } from '../../shared/temporal-names.js';
import {
  TEMPORAL_DATABASES,
  type TemporalClusterPorts,
  type TemporalSql,
  temporalDynamicConfig,
  temporalServerConfig,
} from '../../temporal-config/cluster.js';
import { ensureSearchAttributes } from '../../temporal-config/search-attributes.js';
import { type Child, startChild, waitForPort } from '../lib/processes.js';

/** Creates Temporal's two databases and brings their schemas to the server's version (idempotent). */
export function setUpTemporalSchema(binDir: string, sql: TemporalSql, dataDir: string): void {
  const tool = (database: string, args: string[], quietErrors = false) => {
    const res = spawnSync(
      join(binDir, 'temporal-sql-tool'),
      [
        '--plugin',
        'postgres12',
        '--ep',
        sql.host,
        '-p',
        String(sql.port),
        '-u',
        sql.user,
        '--pw',
        sql.password,
        '--db',
        database,
        ...(quietErrors ? ['--quiet'] : []),
        ...args,
      ],
      { encoding: 'utf8' },
    );
    if (res.status !== 0) throw new Error(`temporal-sql-tool ${args[0]} failed: ${res.stderr || res.stdout}`);
  };
  for (const [kind, database] of Object.entries(TEMPORAL_DATABASES)) {
    const marker = join(dataDir, `schema-${database}.done`);
    if (!existsSync(marker)) {
      tool(database, ['create-database'], true);
      tool(database, ['setup-schema', '-v', '0.0']);
      writeFileSync(marker, '');
    }
    // Every start: a newer server brings its schema up to date (a no-op when it is).
    const name = kind === 'default' ? 'postgresql/v12/temporal' : 'postgresql/v12/visibility';
    tool(database, ['update-schema', '--schema-name', name]);
  }
}

export async function startTemporalServer(opts: {
  binDir: string;
  dataDir: string;
  ports: TemporalClusterPorts;
  sql: TemporalSql;
  quiet?: boolean;
}): Promise<Child> {
  const configDir = join(opts.dataDir, 'config');
  mkdirSync(configDir, { recursive: true });
  const dynamicConfigFile = join(configDir, 'dynamic.yaml');
  writeFileSync(dynamicConfigFile, temporalDynamicConfig());
  writeFileSync(
    join(configDir, 'cluster.yaml'),
    temporalServerConfig({ ports: opts.ports, sql: opts.sql, dynamicConfigFile }),
  );
  const child = startChild(
    'temporal-server',
    join(opts.binDir, 'temporal-server'),
    ['--root', opts.dataDir, '--config', 'config', '--env', 'cluster', '--allow-no-auth', 'start'],
    { quiet: opts.quiet, cwd: opts.dataDir },
  );
  await waitForPort(opts.ports.frontend, '127.0.0.1', 120_000, child);
  return child;
}

/**
 * Registers the namespace (a real server has none but its system namespace) and the service's search
 * attributes, then waits until the frontend serves a visibility query on them (its caches refresh on their
 * own clock).
 */
export async function prepareNamespace(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService
      .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('3 days') })
      .catch((err: Error) => {
        if (!/already exists|AlreadyExists/i.test(err.message)) throw err;
      });
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        await ensureSearchAttributes(connection, namespace);
        const probe = Object.values(SEARCH_ATTRIBUTES)
          .map((name) => `${name}="probe"`)
          .join(' AND ');
        await connection.workflowService.countWorkflowExecutions({ namespace, query: probe });
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  } finally {
    await connection.close();
  }
}
