// The API's JSON body parser: Fastify's own (prototype poisoning refused), behind a depth check. A body nested
// past MAX_JSON_DEPTH is a 400 problem before it is parsed, for every route. An empty body with a JSON content
// type is no body (legal HTTP that many clients send on DELETE): the route then sees what a request without a
// content type gives it, so a route that needs a body still answers that it is missing.
import type { FastifyInstance } from 'fastify';
import { jsonNestedDeeperThan, MAX_JSON_DEPTH } from '../shared/json-depth.js';
import { ProblemError } from './problem.js';

export function registerJsonParser(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    if (jsonNestedDeeperThan(text, MAX_JSON_DEPTH)) {
      done(
        new ProblemError({
          slug: 'bad-request',
          detail: `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects.`,
          errors: [{ location: 'body', message: `nested deeper than ${MAX_JSON_DEPTH} levels` }],
        }),
        undefined,
      );
      return;
    }
    parse(request, text, done);
  });
}
