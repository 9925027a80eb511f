// @ts-check
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { clientCall, clientSetup, curlCommand, exampleOf } from './http-examples.mjs';
import { code, generatedPage, prose, proseBlock, slug, table, text } from './markdown.mjs';
import { fieldRows, isClosed, isSchema, notesOf, sentences, typeOf } from './openapi-schema.mjs';
import { apiRoot, docsRoot } from './paths.mjs';

/**
 * @typedef {Record<string, unknown>} Json
 * @typedef {{ method: string, path: string, operation: Json, webhook: boolean }} Operation
 * @typedef {{ text: string, link?: string, collapsed?: boolean, items?: SidebarItem[] }} SidebarItem
 * @typedef {{ ready: true, sidebar: SidebarItem[], operations: number }
 *   | { ready: false, reason: string }} HttpReference
 */

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const SCHEMAS_PAGE = './schemas.md';
const OUT = path.join(apiRoot, 'http');
const UNTAGGED = 'Other operations';

/** Follows a local `$ref` (`#/components/...`) to the object it names. @param {Json} doc @param {unknown} value */
function resolve(doc, value) {
  if (!isSchema(value) || typeof value.$ref !== 'string' || !value.$ref.startsWith('#/')) {
    return /** @type {Json} */ (value ?? {});
  }
  /** @type {unknown} */
  let target = doc;
  for (const key of value.$ref.slice(2).split('/')) {
    target = isSchema(target) ? target[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  if (!isSchema(target)) throw new Error(`unresolvable $ref ${value.$ref} in the OpenAPI document`);
  return target;
}

/**
 * Operations of `paths`, then the deliveries of `webhooks` (OpenAPI 3.1): for a webhook, `path` is the
 * event name and the request is what the service sends to your endpoint.
 * @param {Json} doc
 * @returns {Operation[]}
 */
function operationsOf(doc) {
  /** @type {Operation[]} */
  const operations = [];
  for (const [source, webhook] of /** @type {const} */ ([
    ['paths', false],
    ['webhooks', true],
  ])) {
    const items = isSchema(doc[source]) ? doc[source] : {};
    for (const [route, item] of Object.entries(items)) {
      if (!isSchema(item)) continue;
      for (const method of METHODS) {
        const operation = item[method];
        if (!isSchema(operation)) continue;
        // Path-level parameters apply to every operation under the path.
        const shared = Array.isArray(item.parameters) ? item.parameters : [];
        const own = Array.isArray(operation.parameters) ? operation.parameters : [];
        operations.push({
          method,
          path: route,
          webhook,
          operation: { ...operation, parameters: [...shared, ...own] },
        });
      }
    }
  }
  return operations;
}

/** @param {Operation} op */
function operationId(op) {
  return typeof op.operation.operationId === 'string'
    ? op.operation.operationId
    : `${op.method} ${op.path}`.replace(/[^A-Za-z0-9]+/g, '-');
}

/**
 * A body: the named schema it refers to (linked), then its fields, so a reader needs no second page.
 * @param {Json} doc
 * @param {unknown} raw
 */
function schemaBlock(doc, raw) {
  if (!isSchema(raw)) return 'Any JSON value.';
  const named = typeof raw.$ref === 'string' ? `Schema: ${typeOf(raw, SCHEMAS_PAGE)}.` : '';
  const schema = resolve(doc, raw);
  const rows = fieldRows(schema, SCHEMAS_PAGE);
  if (rows.length === 0) {
    const notes = notesOf(schema);
    const shape = `${typeOf(schema, SCHEMAS_PAGE)}${notes ? `: ${notes}` : ''}`;
    return [named, named ? '' : shape].filter(Boolean).join('\n\n') || shape;
  }
  const fields = table(
    ['Field', 'Type', 'Required', 'Notes'],
    rows.map((row) => [code(row.name), row.type, row.required ? 'yes' : 'no', row.notes]),
  );
  return [named, fields].filter(Boolean).join('\n\n');
}

/** @param {Json} doc @param {unknown} content */
function contentBlock(doc, content) {
  if (!isSchema(content)) return '';
  return Object.entries(content)
    .map(([mediaType, body]) => {
      const schema = isSchema(body) ? body.schema : undefined;
      const label = mediaType === 'application/json' ? '' : `${code(mediaType)}\n\n`;
      return `${label}${schemaBlock(doc, schema)}`;
    })
    .join('\n\n');
}

/** Security requirements in words. @param {Json} doc @param {Operation} op */
function securityLine(doc, op) {
  const requirements = Array.isArray(op.operation.security) ? op.operation.security : doc.security;
  if (!Array.isArray(requirements)) return undefined;
  if (requirements.length === 0) return 'none';
  return requirements
    .filter(isSchema)
    .map((requirement) => {
      const names = Object.keys(requirement);
      return names.length === 0 ? 'none' : names.map((name) => code(name)).join(' and ');
    })
    .join(' or ');
}

/** Vendor extensions (`x-…`) of an operation, shown as they are. @param {Json} operation */
function extensionRows(operation) {
  return Object.entries(operation)
    .filter(([key]) => key.startsWith('x-'))
    .map(([key, value]) => {
      const label = key.slice(2).replace(/[-_]/g, ' ');
      const shown =
        typeof value === 'boolean'
          ? value
            ? 'yes'
            : 'no'
          : typeof value === 'string'
            ? code(value)
            : code(JSON.stringify(value));
      return [text(label.charAt(0).toUpperCase() + label.slice(1)), shown];
    });
}

/** The first line of an operation: what to call, or, for a webhook, what arrives. @param {Operation} op */
function requestLine(op) {
  return op.webhook
    ? `${code(`${op.method.toUpperCase()} <your endpoint URL>`)} for the ${code(op.path)} event`
    : code(`${op.method.toUpperCase()} ${op.path}`);
}

/** @param {string} lang @param {string} title @param {string} body */
const fence = (lang, title, body) => `\`\`\`${lang}${title ? ` [${title}]` : ''}\n${body}\n\`\`\``;

/**
 * The worked example of an operation, from the contract: the call (curl and client), the answer, and the
 * usual refusals.
 * @param {import('./http-examples.mjs').OperationId} id
 */
function examplesBlock(id) {
  const example = exampleOf(id);
  const answer =
    example.answer.body === undefined
      ? `${text(example.answer.status)}, no body.`
      : fence('json', '', JSON.stringify(example.answer.body, null, 2));
  const parts = [
    '**Example request**',
    `::: code-group\n\n${fence('sh', 'curl', curlCommand(id, example.request))}\n\n` +
      `${fence('ts', '@svc-kit/client', `${clientSetup(example.request)}\n${clientCall(id, example.request)}`)}\n\n:::`,
    `**Example answer** ${text(example.answer.status)}`,
    answer,
  ];
  for (const refusal of example.refusals) {
    parts.push(
      `**Example refusal** ${text(refusal.answer.status)}: ${text(refusal.summary)}`,
      fence('json', '', JSON.stringify(refusal.answer.body, null, 2)),
    );
  }
  return parts.join('\n\n');
}

/** The refusals of an operation, each as the row its table shows. @param {Json} doc @param {Operation} op */
function refusalRows(doc, op) {
  const { operation } = op;
  return Object.entries(isSchema(operation.responses) ? operation.responses : {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, raw]) => {
      const response = resolve(doc, raw);
      const headers = isSchema(response.headers) ? Object.keys(response.headers) : [];
      const meaning = [
        typeof response.description === 'string' ? prose(response.description) : '',
        headers.length > 0 ? `Headers: ${headers.map((name) => code(name)).join(', ')}.` : '',
      ].filter(Boolean);
      const content = isSchema(response.content) ? Object.values(response.content) : [];
      const schema = content.map((media) => (isSchema(media) ? media.schema : undefined)).find(isSchema);
      return [text(status), meaning.join(' '), schema ? typeOf(schema, SCHEMAS_PAGE) : 'none'];
    });
}

/**
 * The refusal rows every operation of a page shares word for word (a slow request's 408, say): shown once
 * at the top of the page rather than under each operation, which keeps a page of many operations light.
 * @param {Json} doc @param {Operation[]} ops
 */
function sharedRefusals(doc, ops) {
  if (ops.length < 2 || ops.some((op) => op.webhook)) return new Set();
  const [first, ...rest] = ops.map((op) => new Set(refusalRows(doc, op).map((row) => row.join('\u0000'))));
  return new Set([...(first ?? [])].filter((row) => rest.every((set) => set.has(row))));
}

/** @param {Json} doc @param {Operation} op @param {Set<string>} shared */
function operationSection(doc, op, shared) {
  const { operation } = op;
  const id = operationId(op);
  const parts = [`## ${text(id)} {#${slug(id)}}`, requestLine(op)];
  const summary = typeof operation.summary === 'string' ? operation.summary : '';
  const description = typeof operation.description === 'string' ? operation.description : '';
  // Generated documents often repeat the summary as the description's first paragraph.
  if (summary && !description.startsWith(summary)) parts.push(`**${prose(summary)}**`);
  if (description) parts.push(proseBlock(description));
  if (operation.deprecated === true) parts.push('::: warning Deprecated\nThis operation is deprecated.\n:::');

  const facts = [];
  const security = op.webhook ? undefined : securityLine(doc, op);
  if (security) facts.push(['Authentication', security]);
  facts.push(...extensionRows(operation));
  if (facts.length > 0) parts.push(table(['Property', 'Value'], facts));

  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : [])
    .map((parameter) => resolve(doc, parameter))
    .filter((parameter) => typeof parameter.name === 'string');
  if (parameters.length > 0) {
    parts.push(op.webhook ? '**Headers sent**' : '**Parameters**');
    parts.push(
      table(
        ['Name', 'In', 'Type', 'Required', 'Notes'],
        parameters.map((parameter) => {
          const schema = isSchema(parameter.schema) ? parameter.schema : {};
          const notes = [
            typeof parameter.description === 'string' ? prose(parameter.description) : '',
            notesOf({ ...schema, description: undefined }),
          ].filter(Boolean);
          return [
            code(String(parameter.name)),
            text(String(parameter.in)),
            typeOf(schema, SCHEMAS_PAGE),
            parameter.required === true ? 'yes' : 'no',
            sentences(notes),
          ];
        }),
      ),
    );
  }

  if (operation.requestBody) {
    const body = resolve(doc, operation.requestBody);
    const media = isSchema(body.content) ? body.content['application/json'] : undefined;
    const closed = !op.webhook && isSchema(media) && isClosed(resolve(doc, media.schema));
    parts.push(
      `**${op.webhook ? 'Body sent' : 'Request body'}**${body.required === false ? ' (optional)' : ''}` +
        (closed ? ': a field not listed here is refused with 400.' : ''),
    );
    if (typeof body.description === 'string') parts.push(proseBlock(body.description));
    parts.push(contentBlock(doc, body.content) || 'No body.');
  }

  const responses = Object.entries(isSchema(operation.responses) ? operation.responses : {}).map(
    ([status, raw]) => /** @type {const} */ ([status, resolve(doc, raw)]),
  );
  for (const [status, response] of responses.filter(([status]) => status.startsWith('2'))) {
    const meaning = typeof response.description === 'string' ? ` — ${prose(response.description)}` : '';
    parts.push(`**${op.webhook ? 'Your answer' : 'Answer'} ${text(status)}**${meaning}`);
    parts.push(contentBlock(doc, response.content) || 'No body.');
  }
  if (!op.webhook) parts.push(examplesBlock(/** @type {any} */ (id)));
  const refusals = refusalRows(doc, op).filter((row) => !shared.has(row.join('\u0000')));
  if (refusals.length > 0) {
    parts.push(shared.size > 0 ? '**Refusals** (besides those at the top of the page)' : '**Refusals**');
    parts.push(table(['Status', 'Meaning', 'Body'], refusals));
  }
  return parts.join('\n\n');
}

/** @param {Json} doc @returns {Map<string, Operation[]>} */
function groupByTag(doc) {
  /** @type {Map<string, Operation[]>} */
  const groups = new Map();
  // Declared tags first, in the document's order; then any tag only used on operations.
  for (const tag of Array.isArray(doc.tags) ? doc.tags : []) {
    if (isSchema(tag) && typeof tag.name === 'string') groups.set(tag.name, []);
  }
  for (const op of operationsOf(doc)) {
    const tags = Array.isArray(op.operation.tags) ? op.operation.tags : [];
    const tag = typeof tags[0] === 'string' ? tags[0] : UNTAGGED;
    const list = groups.get(tag) ?? [];
    list.push(op);
    groups.set(tag, list);
  }
  for (const [tag, list] of groups) if (list.length === 0) groups.delete(tag);
  return groups;
}

/** @param {Json} doc @param {string} tag */
function tagDescription(doc, tag) {
  const found = (Array.isArray(doc.tags) ? doc.tags : []).find((t) => isSchema(t) && t.name === tag);
  return isSchema(found) && typeof found.description === 'string' ? proseBlock(found.description) : '';
}

/** @param {Json} doc @param {Map<string, Operation[]>} groups */
function indexPage(doc, groups) {
  const info = isSchema(doc.info) ? doc.info : {};
  const sections = [
    '# HTTP API reference',
    `Every operation of ${code(String(info.title ?? 'the API'))} (version ${code(String(info.version ?? '?'))}) ` +
      `that the toolkit covers, generated from the OpenAPI ${code(String(doc.openapi ?? ''))} document that ` +
      '`@svc-kit/contract` builds from its schemas. The same document is served with this site: ' +
      '<a href="/openapi.json" target="_blank">openapi.json</a>.',
  ];
  if (typeof info.description === 'string') {
    // The intro above already says where the document comes from; the error codes get their link.
    const description = info.description
      .replace(/^Generated from `@svc-kit\/contract`\.\s*/, '')
      .replace('error-codes page', '[error-codes page](/guide/error-codes)');
    sections.push(proseBlock(description));
  }

  const schemes =
    isSchema(doc.components) && isSchema(doc.components.securitySchemes)
      ? doc.components.securitySchemes
      : {};
  const schemeRows = Object.entries(schemes)
    .filter(([, scheme]) => isSchema(scheme))
    .map(([name, raw]) => {
      const scheme = /** @type {Json} */ (raw);
      const how =
        scheme.type === 'http'
          ? `${code('Authorization')} header, ${text(String(scheme.scheme))} scheme`
          : scheme.type === 'apiKey'
            ? `${text(String(scheme.in))} ${code(String(scheme.name))}`
            : text(String(scheme.type));
      const notes = typeof scheme.description === 'string' ? prose(scheme.description) : '';
      return [code(name), how, notes];
    });
  if (schemeRows.length > 0) {
    sections.push('## Authentication', table(['Scheme', 'Sent as', 'Notes'], schemeRows));
  }

  sections.push('## Operations');
  for (const [tag, ops] of groups) {
    const page = `./${slug(tag)}.md`;
    sections.push(
      `### ${text(tag)}`,
      table(
        ['Operation', 'Method and path', 'Summary'],
        ops.map((op) => [
          `[${text(operationId(op))}](${page}#${slug(operationId(op))})`,
          op.webhook ? `event ${code(op.path)}` : code(`${op.method.toUpperCase()} ${op.path}`),
          typeof op.operation.summary === 'string' ? prose(op.operation.summary) : '',
        ]),
      ),
    );
  }
  sections.push(
    '## Schemas',
    `The named schemas the operations refer to are on [one page](${SCHEMAS_PAGE}).`,
  );
  return generatedPage({ title: 'HTTP API reference' }, sections.join('\n\n'));
}

/** @param {Json} doc */
function schemasPage(doc) {
  const schemas = isSchema(doc.components) && isSchema(doc.components.schemas) ? doc.components.schemas : {};
  const sections = ['# Schemas', 'The named objects of the HTTP API, as the OpenAPI document defines them.'];
  for (const [name, raw] of Object.entries(schemas)) {
    if (!isSchema(raw)) continue;
    sections.push(`## ${text(name)} {#${slug(name)}}`);
    if (typeof raw.description === 'string') sections.push(proseBlock(raw.description));
    sections.push(schemaBlock(doc, { ...raw, description: undefined }));
  }
  return generatedPage({ title: 'Schemas', outline: 2 }, sections.join('\n\n'));
}

/**
 * Writes the HTTP reference (an index, a page per tag, a schemas page) from `docs/public/openapi.json`.
 * @returns {HttpReference}
 */
export function buildHttpReference() {
  const source = path.join(docsRoot, 'public', 'openapi.json');
  if (!existsSync(source)) return { ready: false, reason: 'docs/public/openapi.json does not exist yet' };
  const doc = /** @type {Json} */ (JSON.parse(readFileSync(source, 'utf8')));
  const groups = groupByTag(doc);
  if (groups.size === 0) return { ready: false, reason: 'the OpenAPI document has no operations yet' };

  mkdirSync(OUT, { recursive: true });
  writeFileSync(path.join(OUT, 'index.md'), indexPage(doc, groups));
  writeFileSync(path.join(OUT, 'schemas.md'), schemasPage(doc));
  /** @type {SidebarItem[]} */
  const items = [{ text: 'Overview', link: '/api/http/' }];
  let count = 0;
  for (const [tag, ops] of groups) {
    count += ops.length;
    const description = tagDescription(doc, tag);
    const shared = sharedRefusals(doc, ops);
    const common =
      shared.size > 0
        ? [
            '**Refusals any operation of this page may give**',
            table(
              ['Status', 'Meaning', 'Body'],
              [...shared].map((row) => row.split('\u0000')),
            ),
          ]
        : [];
    const body = [
      `# ${text(tag)}`,
      description,
      ...common,
      ...ops.map((op) => operationSection(doc, op, shared)),
    ]
      .filter(Boolean)
      .join('\n\n');
    writeFileSync(path.join(OUT, `${slug(tag)}.md`), generatedPage({ title: tag, outline: 2 }, body));
    items.push({ text: tag, link: `/api/http/${slug(tag)}` });
  }
  items.push({ text: 'Schemas', link: '/api/http/schemas' });
  return { ready: true, sidebar: items, operations: count };
}
