// Child process of the kill test: appends numbered records forever with fsync on every line and
// prints each number once its append has resolved (i.e. once the line is acknowledged as durable).
import { z } from 'zod';
import { createJsonlWriter } from '../jsonl-writer';

const path = process.argv[2];
if (path === undefined) throw new Error('usage: append-until-killed <path>');
const writer = await createJsonlWriter({
  path,
  schema: z.strictObject({ n: z.int(), padding: z.string() }),
  fsync: 'every-line',
});
for (let n = 0; ; n++) {
  // Two appends in flight at once, so batches of several lines are cut by the kill too.
  await Promise.all([
    writer.append({ n: 2 * n, padding: 'p'.repeat(n % 300) }),
    writer.append({ n: 2 * n + 1, padding: 'q'.repeat((7 * n) % 300) }),
  ]);
  process.stdout.write(`${2 * n + 1}\n`);
}
