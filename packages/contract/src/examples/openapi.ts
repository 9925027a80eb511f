import { refusalResponses } from '../openapi/responses.js';
import type { OperationId } from '../operations/index.js';
import { operationExamples } from './index.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function jsonContent(holder: unknown): Json | undefined {
  if (!isObject(holder) || !isObject(holder.content)) return undefined;
  const media = holder.content['application/json'];
  return isObject(media) ? media : undefined;
}

/** A shared refusal (`$ref`) turned into its own copy, so that it can carry this operation's examples. */
function refusalWithExamples(reference: unknown, examples: Json): Json {
  // The operation's own shared response: a 429 names the operation's outbound budgets or only the guessing limit.
  const name =
    isObject(reference) && typeof reference.$ref === 'string' ? (reference.$ref.split('/').pop() ?? '') : '';
  const shared = refusalResponses()[name];
  if (!isObject(shared)) throw new Error(`no shared refusal ${name}`);
  const media = jsonContent(shared) ?? {};
  const { example: _generic, ...rest } = media;
  return { ...shared, content: { 'application/json': { ...rest, examples } } };
}

/** Adds the examples of `operationExamples` to one operation object of the OpenAPI document. */
function addExamples(operation: Json, id: OperationId): void {
  const example = operationExamples[id];
  const values: Json = { ...example.request.params, ...example.request.query };
  if (Array.isArray(operation.parameters)) {
    operation.parameters = operation.parameters.map((parameter) =>
      isObject(parameter) && typeof parameter.name === 'string' && parameter.name in values
        ? { ...parameter, example: values[parameter.name] }
        : parameter,
    );
  }
  const requestMedia = jsonContent(operation.requestBody);
  if (requestMedia && example.request.body !== undefined) requestMedia.example = example.request.body;

  const responses = isObject(operation.responses) ? operation.responses : {};
  const successMedia = jsonContent(responses[String(example.answer.status)]);
  if (successMedia && example.answer.body !== undefined) successMedia.example = example.answer.body;

  const byStatus = new Map<string, Json>();
  for (const refusal of example.refusals) {
    const status = String(refusal.answer.status);
    const body = refusal.answer.body as { error?: { code?: string } } | undefined;
    const key = body?.error?.code ?? status;
    byStatus.set(status, { ...byStatus.get(status), [key]: { summary: refusal.summary, value: body } });
  }
  for (const [status, examples] of byStatus) {
    if (status in responses) responses[status] = refusalWithExamples(responses[status], examples);
  }
}

/** The `paths` object with every operation's examples: parameters, request body, answer, refusals. */
export function withOperationExamples(
  paths: Record<string, Record<string, unknown>>,
): Record<string, Record<string, unknown>> {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (isObject(operation) && typeof operation.operationId === 'string') {
        const id = operation.operationId as OperationId;
        if (id in operationExamples) addExamples(operation, id);
      }
    }
  }
  return paths;
}
