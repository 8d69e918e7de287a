// Chunking settings of a knowledge base: defaults and the limits the API enforces (422 on violation).

export interface ChunkOptions {
  /** Upper bound of a chunk, overlap included, in estimated tokens (see tokens.ts). */
  size: number;
  /** Tokens of the previous chunk repeated at the start of the next one, within the same section. */
  overlap: number;
}

// ~1,200 characters: a few paragraphs, small enough that a retrieved chunk is about one thing.
export const DEFAULT_CHUNK_OPTIONS: Readonly<ChunkOptions> = { size: 300, overlap: 40 };
export const CHUNK_SIZE_LIMITS = { min: 50, max: 2000 } as const;

/** Same shape as the HTTP layer's FieldError, without importing it: this folder is below the app. */
export interface ChunkOptionsError {
  field: string;
  message: string;
}

/**
 * Every problem with `options`, empty when valid. `fields` names them as the client spelled them,
 * e.g. `{ size: "chunking.size", overlap: "chunking.overlap" }`.
 */
export function validateChunkOptions(
  options: { size: unknown; overlap: unknown },
  fields: { size: string; overlap: string } = { size: "size", overlap: "overlap" },
): ChunkOptionsError[] {
  const errors: ChunkOptionsError[] = [];
  const { size, overlap } = options;
  const sizeValid = Number.isInteger(size) && (size as number) >= CHUNK_SIZE_LIMITS.min && (size as number) <= CHUNK_SIZE_LIMITS.max;
  if (!sizeValid) errors.push({ field: fields.size, message: `must be an integer from ${CHUNK_SIZE_LIMITS.min} to ${CHUNK_SIZE_LIMITS.max}` });
  if (!Number.isInteger(overlap) || (overlap as number) < 0) errors.push({ field: fields.overlap, message: "must be a non-negative integer" });
  else if (sizeValid && (overlap as number) * 2 >= (size as number)) {
    errors.push({ field: fields.overlap, message: `must be less than half of ${fields.size} (below ${(size as number) / 2})` });
  }
  return errors;
}
