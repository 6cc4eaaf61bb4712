/**
 * The published JSON schemas, generated from the valibot schemas the code itself validates with,
 * so the files in `schema/` cannot drift from the code: a test regenerates and compares them.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import type { KindRegistry } from './config/kind.js';
import { manifestSchema } from './config/schema.js';
import { EventSchema } from './engine/events.js';
import { QualificationSchema } from './formal/qualify/report.js';
import { BuildSchema } from './engine/schema.js';
import { GateSchema } from './gate/schema.js';
import { ReceiptSchema } from './store/receipt.js';

/** The published schemas; the manifest's is composed from the kinds of the registry given. */
export const published = (registry: KindRegistry): Record<string, GenericSchema> => ({
  'vkit.manifest-3.schema.json': manifestSchema(registry),
  'vkit.receipt-1.schema.json': ReceiptSchema,
  'vkit.gate-1.schema.json': GateSchema,
  'vkit.build-1.schema.json': BuildSchema,
  'vkit.event-1.schema.json': EventSchema,
  'vkit.qualification-1.schema.json': QualificationSchema,
});

export function jsonSchemaText(schema: GenericSchema, name: string): string {
  // `ignore` keeps what JSON Schema can say; refinements it cannot (custom checks) are enforced by the code.
  const json = toJsonSchema(schema, { errorMode: 'ignore' });
  return `${JSON.stringify({ ...json, $id: `https://vkit.dev/schema/${name}` }, null, 2)}\n`;
}
