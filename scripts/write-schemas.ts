// Regenerates schema/*.json from the valibot schemas: `npm run schemas`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registry } from '../rules/index.js';
import { jsonSchemaText, published } from '../src/schemas.js';
import { FORMAL_PUBLISHED } from '../src/formal/schemas.js';

const dir = join(process.cwd(), 'schema');
mkdirSync(dir, { recursive: true });
for (const [name, schema] of Object.entries({ ...(await published(registry)), ...FORMAL_PUBLISHED })) {
  writeFileSync(join(dir, name), jsonSchemaText(schema, name));
  console.log(`wrote schema/${name}`);
}
