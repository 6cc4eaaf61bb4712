/**
 * The published JSON schemas, generated from the valibot schemas the code itself validates with,
 * so the files in `schema/` cannot drift from the code: a test regenerates and compares them.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import type { KindRegistry } from './config/kind.js';
import { manifestSchema } from './config/schema.js';
import { EventSchema } from './engine/events.js';
import { BuildSchema } from './engine/schema.js';
import { GateSchema } from './gate/schema.js';
import { ReceiptSchema } from './store/receipt.js';

/** The published schemas: vkit's own (the manifest's composed from the registry's kinds), then each kind's. */
export async function published(registry: KindRegistry): Promise<Record<string, GenericSchema>> {
  const schemas: Record<string, GenericSchema> = {
    'vkit.manifest-3.schema.json': manifestSchema(registry),
    'vkit.receipt-1.schema.json': ReceiptSchema,
    'vkit.gate-1.schema.json': GateSchema,
    'vkit.build-1.schema.json': BuildSchema,
    'vkit.event-1.schema.json': EventSchema,
  };
  for (const kind of registry.kinds)
    for (const [name, schema] of Object.entries((await kind.schemas?.()) ?? {})) {
      if (name in schemas) throw new Error(`Two published schemas are named ${name} (kind ${kind.name})`);
      schemas[name] = schema;
    }
  return schemas;
}

export function jsonSchemaText(schema: GenericSchema, name: string): string {
  // `ignore` keeps what JSON Schema can say; refinements it cannot (custom checks) are enforced by the code.
  const json = toJsonSchema(schema, { errorMode: 'ignore' });
  return `${JSON.stringify({ ...json, $id: `https://vkit.dev/schema/${name}` }, null, 2)}\n`;
}
