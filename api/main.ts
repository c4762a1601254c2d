// API entry point: config from the environment, connections, bootstrap key, listen.
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../shared/config.js';
import { createStores } from '../shared/store/index.js';
import { connectMongo, ensureIndexes } from '../shared/store/mongo.js';
import { clientInterceptors } from '../shared/telemetry/temporal-client.js';
import { startTracing } from '../shared/telemetry/tracing.js';
import { buildApp } from './app.js';

export const DEFAULT_TENANT = 'default';

const config = loadConfig();
const tracing = startTracing(config, { serviceName: 'extract-service-api' });
const mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
await ensureIndexes(mongo.db);
const stores = createStores(mongo.db, config);
const { tenants } = stores;
if (config.SERVICE_BOOTSTRAP_API_KEY) {
  const tenant = await tenants.ensureTenant(DEFAULT_TENANT);
  await tenants.ensureKey(tenant._id, 'bootstrap', config.SERVICE_BOOTSTRAP_API_KEY);
}
const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
const temporal = new Client({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  interceptors: clientInterceptors(tracing),
});
const app = await buildApp({ config, db: mongo.db, temporal, ...stores }, { tracing });

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal }, 'stopping API');
  await app.close();
  await connection.close();
  await mongo.close();
  await tracing?.shutdown();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

await app.listen({ host: config.HOST, port: config.PORT });
