import { z } from 'zod';
import { TimestampSchema } from './common.js';

export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().meta({ description: 'First characters of the key, to recognise it' }),
    created_at: TimestampSchema,
  })
  .meta({ id: 'ApiKey' });

export const CreateApiKeyRequestSchema = z
  .object({ name: z.string().min(1).max(64).default('api key') })
  .strict();

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().meta({ description: 'The key itself. Shown only in this response; store it now.' }),
}).meta({ id: 'CreatedApiKey' });

export const ApiKeyListSchema = z.object({ keys: z.array(ApiKeySchema) });
