/**
 * `vkit.event/1`: the typed stream the engine emits. The CLI prints it, the TUI renders it, MCP
 * forwards it as progress. Nothing else about a build reaches a face.
 */
import * as v from 'valibot';
import { GateSchema } from '../gate/schema.js';

/** An event that only names an action and its key (queued, started). */
function actionKeyed<T extends string>(type: T) {
  return v.object({
    schema: v.literal('vkit.event/1'),
    type: v.literal(type),
    ts: v.string(),
    label: v.string(),
    kind: v.string(),
    key: v.string(),
  });
}

export const EventSchema = v.variant('type', [
  actionKeyed('action.queued'),
  actionKeyed('action.started'),
  v.object({
    schema: v.literal('vkit.event/1'),
    type: v.literal('action.cached'),
    ts: v.string(),
    label: v.string(),
    kind: v.string(),
    key: v.string(),
    outcome: v.picklist(['PASS', 'FAIL']),
    run: v.nullable(v.string()),
    ms: v.number(),
    /** How long the run that made the reused evidence took (its receipt's timings), when known. */
    ran_ms: v.optional(v.number()),
    notes: v.optional(v.array(v.string())),
  }),
  v.object({
    schema: v.literal('vkit.event/1'),
    type: v.literal('action.finished'),
    ts: v.string(),
    label: v.string(),
    kind: v.string(),
    key: v.nullable(v.string()),
    status: v.picklist(['ran', 'failed', 'blocked']),
    outcome: v.picklist(['PASS', 'FAIL', 'BLOCKED']),
    reason: v.nullable(v.string()),
    run: v.nullable(v.string()),
    ms: v.number(),
    explain: v.optional(v.array(v.string())),
    tail: v.optional(v.array(v.string())),
  }),
  v.object({
    schema: v.literal('vkit.event/1'),
    type: v.literal('cycle.settled'),
    ts: v.string(),
    status: v.picklist(['READY', 'REJECTED', 'BLOCKED']),
    ran: v.number(),
    cached: v.number(),
    ms: v.number(),
    /** Watch cycle number (absent for a one-off build). */
    cycle: v.optional(v.number()),
    /** The whole gate, so a face can render every item from the stream alone. */
    gate: v.optional(GateSchema),
  }),
  /** Watch: a cycle begins because of these changed paths (root-relative), or `initial`. */
  v.object({
    schema: v.literal('vkit.event/1'),
    type: v.literal('cycle.started'),
    ts: v.string(),
    cycle: v.number(),
    changed: v.array(v.string()),
  }),
  /** Watch: the config cannot be loaded; the gate is BLOCKED ("config invalid") until it is fixed. */
  v.object({
    schema: v.literal('vkit.event/1'),
    type: v.literal('config.invalid'),
    ts: v.string(),
    code: v.string(),
    message: v.string(),
  }),
]);

export type VkitEvent = v.InferOutput<typeof EventSchema>;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type EventInput = DistributiveOmit<VkitEvent, 'schema' | 'ts'>;

export type EventSink = (event: VkitEvent) => void;

export function makeEvent(e: EventInput): VkitEvent {
  return { schema: 'vkit.event/1', ts: new Date().toISOString(), ...e } as VkitEvent;
}
