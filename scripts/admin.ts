// Operator commands: `npm run --silent admin -- <command>`.
//   create-key --tenant <name> [--name <label>]   prints only the new key on stdout
//   sign-in-link --tenant <name>                  prints a one-time console sign-in URL on stdout
//   set-rate-limit --tenant <name> --per-minute <n|default>
//   set-budget --tenant <name> --monthly-usd <n|none>
//   set-tier --tenant <name> --tier <name|default>
//   set-key-version --tenant <name> --key <key id> --api-version <v1|refyne>
//   rebuild-projections                           derives jobs and results again from the event log
import { parseArgs } from 'node:util';
import {
  API_KEY_SCOPES,
  API_VERSIONS,
  type ApiKeyScope,
  type ApiVersion,
  DEFAULT_API_VERSION,
  isApiVersion,
} from '../shared/api-keys.js';
import { loadConfig } from '../shared/config.js';
import { ConsoleSessionStore, signInUrl } from '../shared/store/console-sessions.js';
import { EventStore } from '../shared/store/event-store.js';
import { connectMongo, ensureIndexes } from '../shared/store/mongo.js';
import { TenantStore } from '../shared/store/tenants.js';
import { pricingTiers, tierOf } from '../shared/tiers.js';

const USAGE = `usage: npm run --silent admin -- <command>
  create-key --tenant <name> [--name <label>] [--api-version v1|refyne] [--scopes full,read,...]
                                                    create a tenant (if new) and an API key; prints the key
  sign-in-link --tenant <name>                      a one-time link (24 h) that signs a browser in to the console
  set-rate-limit --tenant <name> --per-minute <n>   per-tenant request limit ("default" resets it)
  set-budget --tenant <name> --monthly-usd <n>      most the tenant's jobs spend on models per month (UTC),
                                                    a hard cap checked before every model call ("none": no cap)
  set-tier --tenant <name> --tier <name>            the tenant's pricing tier (PRICING_TIERS; "default" resets it)
  set-key-version --tenant <name> --key <id> --api-version <v1|refyne>
                                                    the API version a key's requests get (see README)
  rebuild-projections                               rebuild jobs and results from the job event log`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    tenant: { type: 'string' },
    name: { type: 'string' },
    'per-minute': { type: 'string' },
    'monthly-usd': { type: 'string' },
    tier: { type: 'string' },
    key: { type: 'string' },
    'api-version': { type: 'string' },
    scopes: { type: 'string' },
  },
});
const fail = (msg: string): never => {
  process.stderr.write(`${msg}\n${USAGE}\n`);
  process.exit(2);
};
const command = positionals[0] ?? fail('no command given');
const apiVersionOption = (raw: string): ApiVersion =>
  isApiVersion(raw) ? raw : fail(`--api-version must be one of ${API_VERSIONS.join(', ')}`);
const scopesOption = (raw: string): ApiKeyScope[] =>
  raw
    .split(',')
    .map((s) => s.trim())
    .map((s) =>
      (API_KEY_SCOPES as readonly string[]).includes(s)
        ? (s as ApiKeyScope)
        : fail(`--scopes takes ${API_KEY_SCOPES.join(', ')}`),
    );
const config = loadConfig();
const mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB).catch((err: Error) =>
  fail(`cannot reach MongoDB at ${config.MONGODB_URI} (is "npm start" running?): ${err.message}`),
);
try {
  await ensureIndexes(mongo.db);
  const tenants = new TenantStore(mongo.db);
  switch (command) {
    case 'create-key': {
      const tenant = await tenants.ensureTenant(values.tenant ?? fail('--tenant is required'));
      const { key } = await tenants.createKey(tenant._id, values.name ?? 'admin', {
        api_version: apiVersionOption(values['api-version'] ?? DEFAULT_API_VERSION),
        scopes: scopesOption(values.scopes ?? 'full'),
      });
      process.stdout.write(`${key}\n`);
      break;
    }
    case 'sign-in-link': {
      const tenant = await tenants.ensureTenant(values.tenant ?? fail('--tenant is required'));
      const token = await new ConsoleSessionStore(mongo.db).createLink(tenant._id);
      const base = config.PUBLIC_BASE_URL ?? `http://${config.HOST}:${config.PORT}`;
      process.stdout.write(`${signInUrl(base, token)}\n`);
      break;
    }
    case 'set-tier': {
      const tenant = await tenants.ensureTenant(values.tenant ?? fail('--tenant is required'));
      const raw = values.tier ?? fail('--tier is required');
      const known = pricingTiers(config).map((t) => t.name);
      if (raw !== 'default' && !known.includes(raw)) fail(`--tier must be one of ${known.join(', ')}`);
      await tenants.setTier(tenant._id, raw === 'default' ? null : raw);
      process.stderr.write(`pricing tier of "${tenant.name}": ${tierOf(config, { tier: raw }).name}\n`);
      break;
    }
    case 'set-key-version': {
      const tenant = await tenants.ensureTenant(values.tenant ?? fail('--tenant is required'));
      const version = apiVersionOption(values['api-version'] ?? fail('--api-version is required'));
      if (!(await tenants.setKeyApiVersion(tenant._id, values.key ?? fail('--key is required'), version)))
        fail(`tenant "${tenant.name}" has no key ${values.key}`);
      process.stderr.write(`key ${values.key}: API version ${version}\n`);
      break;
    }
    case 'set-rate-limit': {
      const tenant = await tenants.ensureTenant(values.tenant ?? fail('--tenant is required'));
      const raw = values['per-minute'] ?? fail('--per-minute is required');
      const perMinute = raw === 'default' ? null : Number(raw);
      if (perMinute !== null && !(Number.isInteger(perMinute) && perMinute > 0))
        fail('--per-minute must be a positive integer');
      await tenants.setRateLimit(tenant._id, perMinute);
      process.stderr.write(
        `rate limit of "${tenant.name}": ${perMinute ?? `default (${config.RATE_LIMIT_PER_MINUTE})`}/min\n`,
      );
      break;
    }
    case 'set-budget': {
      const tenant = await tenants.ensureTenant(values.tenant ?? fail('--tenant is required'));
      const raw = values['monthly-usd'] ?? fail('--monthly-usd is required');
      const usd = raw === 'none' ? null : Number(raw);
      if (usd !== null && !(Number.isFinite(usd) && usd > 0))
        fail('--monthly-usd must be a positive number of USD, or "none"');
      await tenants.setMonthlyBudget(tenant._id, usd);
      process.stderr.write(`monthly budget of "${tenant.name}": ${usd === null ? 'none' : `${usd} USD`}\n`);
      break;
    }
    case 'rebuild-projections': {
      const { jobs } = await new EventStore(mongo.db).rebuildAll();
      process.stderr.write(`rebuilt the projections of ${jobs} jobs from the event log\n`);
      break;
    }
    default:
      fail(`unknown command "${command}"`);
  }
} finally {
  await mongo.close();
}
