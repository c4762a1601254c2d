// keys: the tenant's API keys, as the API allows: list (never the keys), create (the new key is printed
// once, on stdout: the service cannot show it again), revoke.
import type { Command } from 'commander';
import { problemOf } from '../../../typescript/src/errors.js';
import { createContext } from '../context.js';
import { unwrap } from './jobs.js';

export function keysCommand(program: Command): void {
  const keys = program.command('keys').description("your tenant's API keys: list (default), create, revoke");

  keys
    .command('list', { isDefault: true })
    .description('list the keys (id, name, prefix; never the keys themselves)')
    .action(async (_flags: object, command: Command) => {
      const ctx = createContext(command);
      const list = unwrap(await ctx.client().api.GET('/api/v1/keys'));
      if (ctx.json) return ctx.outJson(list);
      if (list.keys.length === 0) return ctx.note('no keys');
      const width = Math.max(...list.keys.map((k) => k.id.length));
      ctx.out(
        list.keys.map((k) => `${k.id.padEnd(width)}  ${k.prefix}…  ${k.created_at}  ${k.name}`).join('\n'),
      );
    });

  keys
    .command('create')
    .description('create a key; prints it once (store it now)')
    .option('--name <name>', 'a name to recognise it by', 'cli')
    .action(async (flags: { name: string }, command: Command) => {
      const ctx = createContext(command);
      const created = unwrap(await ctx.client().api.POST('/api/v1/keys', { body: { name: flags.name } }));
      if (ctx.json) return ctx.outJson(created);
      ctx.out(created.key);
      ctx.note(`created key ${created.id} (${created.name}); it is shown this once`);
    });

  keys
    .command('revoke')
    .description('delete a key: requests with it are refused from now on')
    .argument('<id>', 'key id (from keys list)')
    .action(async (id: string, _flags: object, command: Command) => {
      const ctx = createContext(command);
      const { response, error } = await ctx
        .client()
        .api.DELETE('/api/v1/keys/{id}', { params: { path: { id } } });
      if (!response.ok) throw problemOf(response, error); // 204 has no body to unwrap
      if (ctx.json) return ctx.outJson({ id, revoked: true });
      ctx.note(`revoked key ${id}`);
    });
}
