/** The multi-model limits the view needs (./multi.ts re-exports them), apart from the zod schemas. Pure. */

/** Spec 000 sections 5 and 9: at most 4 additional text models (so 5 models in one request). */
export const MAX_EXTRA_MODELS = 4;
export const MAX_MULTI_MODELS = MAX_EXTRA_MODELS + 1;
