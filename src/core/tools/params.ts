import * as z from 'zod';
import { MAX_PATH_CHARS } from '../workspace/paths';

/**
 * Parameter helpers shared by the tool schemas. Backends built on LLM output sometimes send
 * numbers and booleans as strings ("20", "true"); those are accepted, anything else is a
 * VALIDATION_FAILED naming the field.
 */
const numericString = /^\s*-?\d+\s*$/;

export const intParam = () =>
  z.preprocess((v) => (typeof v === 'string' && numericString.test(v) ? Number(v) : v), z.number().int());

export const boolParam = () =>
  z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());

/** Names of code (classes, methods, `a.b.C#m`) longer or more dotted than this are refused: lookups try every dotted prefix. */
const MAX_NAME_CHARS = 1000;
const MAX_NAME_PARTS = 64;

/** A class or method name as the code tools take it: trimmed, not empty, bounded in length and dotted parts. */
export const nameParam = () =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_NAME_CHARS)
    .refine((s) => s.split('.').length <= MAX_NAME_PARTS, `must have at most ${MAX_NAME_PARTS} dotted parts`);

/** A project-relative path; emptiness and length are checked here, depth and containment by `resolveInProject`. */
export const pathParam = () => z.string().min(1, 'must not be empty').max(MAX_PATH_CHARS);
