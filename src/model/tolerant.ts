// Results are read tolerantly (docs/contract.md §10): a worker of a newer release may add a field to
// a result, and a caller of this release must still read it, ignoring the field, while every field
// it knows is still checked. Requests stay strict: an unknown field there is ErrInvalid naming it.
//
// The result schemas stay strict (they say exactly what this release's worker writes, and the
// published JSON Schemas are generated from them); a reader derives its tolerant twin here, in which
// every object, however deep (a TrainJobState's ref), drops the keys it does not know instead of
// refusing them.
import { z } from 'zod';

function tolerantOf(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    // An object-level refinement would be lost in the copy; none of the results has one.
    if ((schema.def.checks ?? []).length > 0)
      throw new Error(
        'tolerant(): an object with refinements cannot be copied; read it strictly or drop the refinement',
      );
    const shape = Object.fromEntries(
      Object.entries(schema.shape).map(([key, field]) => [key, tolerantOf(field as z.ZodType)]),
    );
    return z.object(shape);
  }
  if (schema instanceof z.ZodOptional) return tolerantOf(schema.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodNullable) return tolerantOf(schema.unwrap() as z.ZodType).nullable();
  if (schema instanceof z.ZodArray) {
    const element = tolerantOf(schema.element as z.ZodType);
    if (element === schema.element) return schema;
    if ((schema.def.checks ?? []).length > 0)
      throw new Error('tolerant(): an array of objects with checks cannot be copied');
    return z.array(element);
  }
  if (schema instanceof z.ZodDiscriminatedUnion)
    return z.discriminatedUnion(
      schema.def.discriminator,
      schema.options.map((option) => tolerantOf(option as z.ZodType)) as [z.ZodObject, ...z.ZodObject[]],
    );
  if (schema instanceof z.ZodUnion)
    return z.union(schema.options.map((option) => tolerantOf(option as z.ZodType)));
  return schema;
}

/** The schema that reads what `schema` describes, ignoring fields it does not know, at any depth. */
export const tolerant = <T>(schema: z.ZodType<T>): z.ZodType<T> => tolerantOf(schema) as z.ZodType<T>;
