// `node --import tsx --import <this file> <entry>`: appends the URL of every module the process
// loads, one a line, to the file named by CHI_RECORD_LOADS (cli-quick.test.ts). Registered after
// tsx, so its hook runs first and sees each module before tsx compiles it.
import { register } from 'node:module';

register('./record-loads-hooks.mjs', import.meta.url, {
  data: { log: process.env.CHI_RECORD_LOADS },
});
