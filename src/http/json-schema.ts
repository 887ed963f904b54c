import * as v from 'valibot';
import { toJsonSchema, type JsonSchema } from '@valibot/to-json-schema';

// Schemas whose valibot form has no JSON Schema equivalent (a custom check, a string that a
// transform turns into a number) carry the JSON Schema a client should read.
const documented = new WeakMap<object, JsonSchema>();

/** Gives `schema` the JSON Schema the OpenAPI document shows for it. */
export function documentAs<S extends v.GenericSchema>(schema: S, json: JsonSchema): S {
  documented.set(schema, json);
  return schema;
}

/** The JSON Schema (2020-12, as OpenAPI 3.1 uses) of a valibot schema, as a client sends or reads it. */
export function jsonSchemaOf(schema: v.GenericSchema): JsonSchema {
  const own = documented.get(schema);
  if (own) return own;
  const { $schema: _, ...json } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'ignore',
    overrideSchema: ({ valibotSchema }) => documented.get(valibotSchema) ?? null,
  });
  return json; // OpenAPI 3.1 declares the dialect once (jsonSchemaDialect)
}

// Query parameters are optional unless marked: a required one is refused (400 naming it) when absent.
const requiredParams = new WeakSet<object>();

/** Marks a query parameter's schema as required in the document (the handler refuses its absence). */
export function requiredParam<S extends v.GenericSchema>(schema: S): S {
  requiredParams.add(schema);
  return schema;
}

export function isRequiredParam(schema: v.GenericSchema): boolean {
  return requiredParams.has(schema);
}
