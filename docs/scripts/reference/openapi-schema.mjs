// @ts-check
import { code, prose, slug } from './markdown.mjs';

/**
 * @typedef {Record<string, unknown>} Schema a JSON Schema 2020-12 object, as OpenAPI 3.1 embeds it
 * @typedef {{ name: string, type: string, required: boolean, notes: string }} FieldRow
 */

const COMPONENT_PREFIX = '#/components/schemas/';

/** @param {unknown} value @returns {value is Schema} */
export function isSchema(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Link to a named component schema on the schemas page. @param {string} ref @param {string} schemasPage */
function refLink(ref, schemasPage) {
  const name = ref.slice(COMPONENT_PREFIX.length);
  return `[${name}](${schemasPage}#${slug(name)})`;
}

/**
 * One-line type of a schema: `string`, `number or null`, `array of Contact`, `"removed"`.
 * @param {Schema} schema
 * @param {string} schemasPage relative link to the schemas page
 * @returns {string}
 */
export function typeOf(schema, schemasPage) {
  if (typeof schema.$ref === 'string') {
    return schema.$ref.startsWith(COMPONENT_PREFIX) ? refLink(schema.$ref, schemasPage) : code(schema.$ref);
  }
  if ('const' in schema) return code(JSON.stringify(schema.const));
  const union = /** @type {unknown[] | undefined} */ (schema.anyOf ?? schema.oneOf);
  if (Array.isArray(union)) {
    return union
      .filter(isSchema)
      .map((branch) => typeOf(branch, schemasPage))
      .join(' or ');
  }
  if (Array.isArray(schema.allOf)) {
    return schema.allOf
      .filter(isSchema)
      .map((branch) => typeOf(branch, schemasPage))
      .join(' and ');
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length === 0) return Array.isArray(schema.enum) ? 'enum' : 'any value';
  return types
    .map((type) => {
      if (type === 'array') {
        return isSchema(schema.items) ? `array of ${typeOf(schema.items, schemasPage)}` : 'array';
      }
      if (type === 'object' && !isSchema(schema.properties) && isSchema(schema.additionalProperties)) {
        return `map of string to ${typeOf(schema.additionalProperties, schemasPage)}`;
      }
      return String(type);
    })
    .join(' or ');
}

/**
 * The constraints of a schema as short lower-case phrases (`one of …`, `at most 96 characters`).
 * @param {Schema} schema
 * @returns {string[]}
 */
function constraintPhrases(schema) {
  /** @type {string[]} */
  const notes = [];
  if (Array.isArray(schema.enum)) notes.push(`one of ${schema.enum.map((v) => code(String(v))).join(', ')}`);
  const bounds = [
    ['minLength', 'at least %s character'],
    ['maxLength', 'at most %s character'],
    ['minItems', 'at least %s item'],
    ['maxItems', 'at most %s item'],
    ['minimum', 'minimum %s'],
    ['maximum', 'maximum %s'],
    ['exclusiveMinimum', 'greater than %s'],
    ['exclusiveMaximum', 'less than %s'],
  ];
  for (const [key, phrase] of bounds) {
    const bound = schema[/** @type {string} */ (key)];
    if (typeof bound !== 'number') continue;
    const plural = /(character|item)$/.test(/** @type {string} */ (phrase)) && bound !== 1 ? 's' : '';
    notes.push(`${/** @type {string} */ (phrase).replace('%s', String(bound))}${plural}`);
  }
  if (typeof schema.pattern === 'string') notes.push(`matches ${code(schema.pattern)}`);
  if (typeof schema.format === 'string') notes.push(`format ${code(schema.format)}`);
  if ('default' in schema) notes.push(`default ${code(JSON.stringify(schema.default))}`);
  // Nested items carry their own constraints (e.g. each permission at most 96 characters).
  if (isSchema(schema.items) && !schema.items.$ref) {
    const itemNotes = constraintPhrases(schema.items);
    if (itemNotes.length > 0) notes.push(`each item: ${itemNotes.join(', ')}`);
  }
  return notes;
}

/**
 * Sentences joined into one note: each ends with a full stop, so a description and the constraints that
 * follow it read as prose ("… a private network. At least 1 character.").
 * @param {readonly string[]} sentences
 */
export function sentences(sentences) {
  return sentences
    .map((sentence) => sentence.trim())
    .filter(Boolean)
    .map((sentence) => {
      const capital = sentence.replace(/^[a-z]/, (letter) => letter.toUpperCase());
      return /[.!?:)]$/.test(capital) ? capital : `${capital}.`;
    })
    .join(' ');
}

/**
 * The description of a schema, then its constraints.
 * @param {Schema} schema
 */
export function notesOf(schema) {
  const description = typeof schema.description === 'string' ? prose(schema.description) : '';
  return sentences([description, constraintPhrases(schema).join('; ')]);
}

/**
 * The object schema inside `schema`, if it is an inline object (possibly nullable or an array of them):
 * its fields are listed under the parent's name.
 * @param {Schema} schema
 * @returns {{ object: Schema, suffix: string } | undefined}
 */
function inlineObjectOf(schema) {
  if (schema.$ref) return undefined;
  if (isSchema(schema.properties)) return { object: schema, suffix: '' };
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) {
    const objects = union.filter(isSchema).filter((branch) => isSchema(branch.properties));
    if (objects.length === 1 && objects[0]) return { object: objects[0], suffix: '' };
  }
  if (isSchema(schema.items)) {
    const inner = inlineObjectOf(schema.items);
    if (inner) return { object: inner.object, suffix: `[]${inner.suffix}` };
  }
  return undefined;
}

/**
 * Flattens an object schema to one row per field, nested inline objects as `parent.child` and
 * `parent[].child`.
 * @param {Schema} schema
 * @param {string} schemasPage
 * @param {string} [prefix]
 * @returns {FieldRow[]}
 */
export function fieldRows(schema, schemasPage, prefix = '') {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  /** @type {FieldRow[]} */
  const rows = [];
  for (const [name, raw] of Object.entries(properties)) {
    if (!isSchema(raw)) continue;
    const fullName = `${prefix}${name}`;
    rows.push({
      name: fullName,
      type: typeOf(raw, schemasPage),
      required: required.has(name),
      notes: notesOf(raw),
    });
    const nested = inlineObjectOf(raw);
    if (nested) rows.push(...fieldRows(nested.object, schemasPage, `${fullName}${nested.suffix}.`));
  }
  return rows;
}

/**
 * Whether a schema forbids fields it does not list.
 * @param {Schema} schema
 */
export function isClosed(schema) {
  return schema.additionalProperties === false || schema.unevaluatedProperties === false;
}
