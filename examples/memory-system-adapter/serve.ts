/**
 * `pnpm serve [--port N]`: runs the adapter in front of the stand-in product until Ctrl-C, for
 * `chi pilot --base-url http://127.0.0.1:PORT/v1 --models acme/memory --memory system ...`.
 */
import { parseArgs } from 'node:util';
import { startAdapter } from './adapter';
import { createProductMemory } from './product-memory';

const { values } = parseArgs({ options: { port: { type: 'string', default: '8787' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`serve: --port: expected 0-65535, found ${values.port}`);
  process.exit(2);
}
const adapter = await startAdapter(createProductMemory(), { port });
console.log(`adapter listening: --base-url ${adapter.baseUrl} --models acme/memory`);
const stop = () => {
  adapter.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
