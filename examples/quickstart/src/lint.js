// A tiny lint: no line in src/ may end with trailing whitespace.
import { readdirSync, readFileSync } from 'node:fs';

let bad = 0;
for (const name of readdirSync(new URL('.', import.meta.url))) {
  readFileSync(new URL(name, import.meta.url), 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (/[ \t]$/.test(line)) {
        console.error(`${name}:${i + 1}: trailing whitespace`);
        bad++;
      }
    });
}
process.exit(bad ? 1 : 0);
