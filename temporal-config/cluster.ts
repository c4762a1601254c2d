// Settings of the real Temporal server the cluster runs (scripts/cluster/): its static configuration on
// PostgreSQL (the shape of Temporal's own development-postgres12.yaml, with our ports) and its dynamic
// configuration (the dev server's values, temporal-config/dev-server.ts, so both behave alike for the
// service). A production cluster is configured by its operators; this is what one looks like for us.
import { DEV_SERVER_DYNAMIC_CONFIG } from './dev-server.js';

export interface TemporalClusterPorts {
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  worker: number;
  /** Membership (ringpop) ports of the four services, in the order above. */
  membership: [number, number, number, number];
  metrics: number;
}

export interface TemporalSql {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** The databases of Temporal's persistence and visibility stores. */
export const TEMPORAL_DATABASES = { default: 'temporal', visibility: 'temporal_visibility' } as const;

/** History shards: fixed for the cluster's life (changing it needs a new database). 4 suit one machine. */
const HISTORY_SHARDS = 4;

const datastore = (sql: TemporalSql, database: string, maxConns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: "${sql.host}:${sql.port}"
        connectProtocol: tcp
        user: ${sql.user}
        password: "${sql.password}"
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;

const service = (grpcPort: number, membershipPort: number, extra = '') => `
    rpc:
      grpcPort: ${grpcPort}
      membershipPort: ${membershipPort}
      bindOnLocalHost: true${extra}`;

/** The server's YAML configuration (temporal-server --config <dir> --env cluster). */
export function temporalServerConfig(opts: {
  ports: TemporalClusterPorts;
  sql: TemporalSql;
  dynamicConfigFile: string;
}): string {
  const { ports, sql } = opts;
  const [mFrontend, mHistory, mMatching, mWorker] = ports.membership;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: ${HISTORY_SHARDS}
  datastores:
    postgres-default:${datastore(sql, TEMPORAL_DATABASES.default, 20)}
    postgres-visibility:${datastore(sql, TEMPORAL_DATABASES.visibility, 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
  metrics:
    prometheus:
      framework: tally
      timerType: histogram
      listenAddress: "127.0.0.1:${ports.metrics}"
services:
  frontend:${service(ports.frontend, mFrontend, `\n      httpPort: ${ports.frontendHttp}`)}
  history:${service(ports.history, mHistory)}
  matching:${service(ports.matching, mMatching)}
  worker:${service(ports.worker, mWorker)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "127.0.0.1:${ports.frontend}"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "${opts.dynamicConfigFile}"
  pollInterval: 10s
`;
}

/** The dynamic configuration file: every key once, with no constraints. */
export function temporalDynamicConfig(): string {
  return Object.entries(DEV_SERVER_DYNAMIC_CONFIG)
    .map(([key, value]) => `${key}:\n  - value: ${JSON.stringify(value)}\n    constraints: {}\n`)
    .join('');
}
