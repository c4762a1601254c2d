// A stored site's session: PUT replaces it (values sealed), GET shows names and dates, DELETE forgets it.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParamsSchema } from '../../shared/schemas/common.js';
import { standardErrors } from '../../shared/schemas/problem.js';
import { SiteSessionPutSchema, SiteSessionSchema } from '../../shared/schemas/site-session.js';
import { sessionResource } from '../../shared/store/site-sessions.js';
import type { ApiDeps } from '../deps.js';
import { secretNames } from '../job-requests.js';
import { found, notFound, ProblemError } from '../problem.js';

const invalid = (location: string, message: string) =>
  new ProblemError({
    slug: 'validation-error',
    detail: `The request has invalid fields: ${location}`,
    errors: [{ location, message }],
  });

export const siteSessionRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    const owned = async (tenantId: string, id: string) =>
      found(await deps.sites.get(tenantId, id), `site ${id}`);

    app.put(
      '/sites/:id/session',
      {
        schema: {
          summary: "Set a stored site's session (cookies, headers, login recipe)",
          description:
            "Replaces the site's session. Cookies and headers are sent only to the site's own origin (the scheme, " +
            'host and port of its url), in static and dynamic mode, and in the browser only on requests of the ' +
            "site's own pages (never from a frame, worker or popup of another origin); never to another origin a " +
            'page links to, loads from or redirects to. Cookies, headers and secrets are stored sealed ' +
            "(SECRETS_KEY) and never answered, logged or put in a job. login.url must be on the site's origin; " +
            'every secret a login step types must be in secrets, and only the login recipe types secrets. ' +
            "The site's crawls (POST /sites/{id}/crawl) use the session; other jobs do not. 200 with the session " +
            '(names and dates only).',
          tags: ['sites'],
          params: IdParamsSchema,
          body: SiteSessionPutSchema,
          response: { 200: SiteSessionSchema, ...standardErrors },
        },
      },
      async (request) => {
        const site = await owned(request.tenant._id, request.params.id);
        const { login, secrets } = request.body;
        const origin = new URL(site.url).origin;
        if (login && new URL(login.url).origin !== origin)
          throw invalid('body.login.url', `must be on the site's origin ${origin}`);
        for (const name of secretNames(login?.actions))
          if (!(name in secrets)) throw invalid('body.login.actions', `no secret named "${name}" in secrets`);
        return sessionResource(await deps.sessions.put(request.tenant._id, site, request.body));
      },
    );

    app.get(
      '/sites/:id/session',
      {
        schema: {
          summary: "Get a stored site's session: cookie, header and secret names and dates, never values",
          description:
            'A site has a session only once PUT /sites/{id}/session set one: before that (or after DELETE) this ' +
            'is a 404 problem naming the session, as for a site that is not yours.',
          tags: ['sites'],
          params: IdParamsSchema,
          response: { 200: SiteSessionSchema, ...standardErrors },
        },
      },
      async (request) => {
        const site = await owned(request.tenant._id, request.params.id);
        const doc = await deps.sessions.get(request.tenant._id, site.id);
        if (!doc) throw notFound(`session of site ${site.id}`);
        return sessionResource(doc);
      },
    );

    app.delete(
      '/sites/:id/session',
      {
        schema: {
          summary: "Delete a stored site's session",
          description: "The site's crawls then fetch logged out. 204.",
          tags: ['sites'],
          params: IdParamsSchema,
          response: { 204: z.null().meta({ description: 'Deleted' }), ...standardErrors },
        },
      },
      async (request, reply) => {
        const site = await owned(request.tenant._id, request.params.id);
        if (!(await deps.sessions.delete(request.tenant._id, site.id)))
          throw notFound(`session of site ${site.id}`);
        return reply.code(204).send(null);
      },
    );
  };
