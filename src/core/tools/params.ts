import * as z from 'zod';

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

/** A project-relative path; emptiness is checked here, containment by `resolveInProject`. */
export const pathParam = () => z.string().min(1, 'must not be empty');
