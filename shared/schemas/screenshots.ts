// GET /jobs/{id}/pages/{page_id}/screenshot: a page's screenshot (formats: ["screenshot"] or a screenshot action).
import { z } from 'zod';
import { MAX_SCREENSHOTS } from './actions.js';

export const ScreenshotParamsSchema = z.object({
  id: z.string().min(1).max(200).meta({ description: 'The job id' }),
  page_id: z.string().min(1).max(200).meta({
    description: "The page result's id (`id` in GET /jobs/{id}/results and the crawl map)",
    example: '9b2f5c1e-6a7d-4e0c-9b8a-7f6e5d4c3b2a',
  }),
});

export const ScreenshotQuerySchema = z.object({
  index: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_SCREENSHOTS - 1)
    .default(0)
    .meta({
      description:
        "Which of the page's screenshots, from 0 in the order they were taken (metadata.screenshots[].index); " +
        'default 0',
      example: 0,
    }),
});

/** The 200 body is the PNG itself (sent as bytes, not through a JSON serializer). */
export const ScreenshotResponseSchema = z.string().meta({
  description: 'The screenshot',
  content: { 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } } },
});
