/**
 * Multi-model chat (spec 000 sections 5 and 7): POST /api/talk-to-gpt-multi, its request and its line protocol.
 * docs/protocol.md ("Multi-model lines") documents the framing; the gateway route is
 * src/server/chat/talk-to-gpt-multi.ts and the engine's parser src/worker/rooms/multimodel/multi-stream.ts.
 */
import { z } from 'zod';
import { RequestIdSchema } from './request-id';
import { ChatMessageSchema } from './api';
import { SamplingSchema, samplingShape } from './sampling';
import type { StreamMetadata } from './stream';
import { MAX_EXTRA_MODELS, MAX_MULTI_MODELS } from './multi-limits';

export { MAX_EXTRA_MODELS, MAX_MULTI_MODELS } from './multi-limits';

const ModelId = z.string().min(1).max(200);

/** One model's own messages (modelIndex = its position in `models`). */
export const ModelPayloadSchema = z.object({
  modelIndex: z.number().int().min(0).max(MAX_MULTI_MODELS - 1),
  model: ModelId,
  messages: z.array(ChatMessageSchema).min(1).max(1000),
});

/**
 * The spec's request fields. `models` and either `modelPayloads` (per-model messages, what Parley's engine sends:
 * each model's history fits its own context window) or `prompt` are needed; the sampling settings are optional
 * and passed to every upstream that takes them. `requestId` is ours: the idempotency key of the charges (one per
 * model: `{requestId}:{modelIndex}`).
 */
export const TalkToGptMultiRequestSchema = z
  .object({
    conversationUUID: z.string().min(1).max(100),
    models: z
      .array(ModelId)
      .min(1)
      .max(MAX_MULTI_MODELS, { message: `At most ${MAX_EXTRA_MODELS} additional models` })
      .refine((m) => new Set(m).size === m.length, { message: 'Each model may be chosen once' }),
    modelPayloads: z.array(ModelPayloadSchema).max(MAX_MULTI_MODELS).optional(),
    prompt: z.string().max(1_000_000).optional(),
    instructions: z.string().max(100_000).optional(),
    requestId: RequestIdSchema.optional(),
    /** Settings for every model (src/protocol/sampling.ts); `modelSettings` overrides them per model id. */
    ...samplingShape,
    response_format: z.record(z.string(), z.unknown()).optional(),
    structured_outputs: z.boolean().optional(),
    thinking: z.union([z.boolean(), z.record(z.string(), z.unknown())]).optional(),
    promptCaching: z.boolean().optional(),
    recommendedTier: z.string().max(50).optional(),
    /** Each model's own settings, by model id (what Parley's engine sends: the settings the user set per model). */
    modelSettings: z.record(ModelId, SamplingSchema).optional(),
    isMultiModel: z.boolean().optional(),
  })
  .refine((r) => r.modelPayloads !== undefined || (r.prompt !== undefined && r.prompt.trim() !== ''), {
    message: 'Give modelPayloads or a prompt',
    path: ['prompt'],
  })
  .refine((r) => (r.modelPayloads ?? []).every((p) => r.models[p.modelIndex] === p.model), {
    message: 'Each modelPayload must name the model at its modelIndex',
    path: ['modelPayloads'],
  });
export type TalkToGptMultiRequest = z.infer<typeof TalkToGptMultiRequestSchema>;

/**
 * One line of the multi-model stream (NDJSON: one JSON object per line, '\n'-terminated). Every line names its
 * model; a model's lines arrive in order, different models' lines interleave. Per model:
 *   chunk lines: `{"modelId", "chunk"}`: reply text in the single-stream framing (<think> markers included);
 *   then either `{"modelId", "metadata": {...}, "isMetadata": true}` (what stream-gpt's metadata tag carries)
 *   or `{"modelId", "error", "isError": true, "status"?, "code"?}` (the model failed to start or failed; a model
 *   refused for the balance, status 402, also carries what it needs: "requiredBalance" in XNO, "requiredUsd"),
 *   and last `{"modelId", "complete": true}`.
 */
export type MultiStreamLine =
  | { modelId: string; chunk: string }
  | { modelId: string; metadata: StreamMetadata; isMetadata: true }
  | { modelId: string; error: string; isError: true; status?: number; code?: string; requiredBalance?: string; requiredUsd?: string }
  | { modelId: string; complete: true };
