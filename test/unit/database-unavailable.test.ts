// Which database errors the API answers 503 with Retry-After (a restart, a failover, FerretDB without its
// PostgreSQL) rather than 500.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MongoNetworkError, MongoServerError } from 'mongodb';
import { isDatabaseUnavailable } from '../../shared/store/mongo.js';

const serverError = (code: number, errmsg: string) => new MongoServerError({ ok: 0, code, errmsg });

test('an unreachable or failing-over database is unavailable; a wrong request is not', () => {
  assert.equal(isDatabaseUnavailable(new MongoNetworkError('connection reset')), true);
  // FerretDB whose PostgreSQL is restarting.
  const ferret = serverError(
    1,
    'failed to connect to `user=extract database=ferretdb`: dial tcp 127.0.0.1:5432: connect: connection refused',
  );
  assert.equal(isDatabaseUnavailable(ferret), true);
  assert.equal(isDatabaseUnavailable(serverError(10107, 'not primary')), true);
  assert.equal(isDatabaseUnavailable(serverError(91, 'shutdown in progress')), true);
  assert.equal(isDatabaseUnavailable(serverError(11000, 'E11000 duplicate key')), false);
  assert.equal(isDatabaseUnavailable(serverError(1, 'some other internal error')), false);
  assert.equal(isDatabaseUnavailable(new Error('failed to connect')), false);
});
