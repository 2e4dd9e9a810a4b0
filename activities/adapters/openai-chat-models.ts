import { SpanKind } from '@opentelemetry/api';
import OpenAI from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { zodResponseFormat } from 'openai/helpers/zod';
import { RagError } from '../../core/errors';
import { buildAnswerPrompt, buildAnswerRepairPrompt } from '../../core/prompts/answer-prompt';
import { buildComplexityPrompt } from '../../core/prompts/complexity-prompt';
import { buildGraderPrompt } from '../../core/prompts/grader-prompt';
import { buildRewritePrompt } from '../../core/prompts/rewrite-prompt';
import type { UserMessage } from '../../core/prompts/user-message';
import { AnswerDraft } from '../../core/schemas/answer';
import { ComplexityResult, EvidenceGrade, RewritePlan } from '../../core/schemas/model-outputs';
import type { ChatModels } from '../ports';
import { chatRequestAttributes, chatResponseAttributes, chatSpanName } from '../telemetry/gen-ai';
import { addAttributes, inSpan, NO_CONTENT, type SpanContentPolicy } from '../telemetry/spans';
import { modelCallFailure } from './openai-call-failure';

export type OpenAiChatModelsOptions = {
  /** OPENAI_API_KEY. Unset values are allowed here and reported when a call needs them (spec §4.14). */
  apiKey?: string;
  /** OPENAI_BASE_URL; default https://api.openai.com/v1. */
  baseUrl?: string;
  /** FAST_MODEL: complexity planner and rewrite planner (spec §7.2, §7.3). */
  fastModel?: string;
  /** GRADE_MODEL: evidence grader (spec §7.1). */
  gradeModel?: string;
  /** ANSWER_MODEL: the answer writer (default GRADE_MODEL, resolved by parseConfig). */
  answerModel?: string;
  /** Per request. Below MODEL_CALL's 60 s start-to-close, so a slow model fails with a readable message first. */
  timeoutMs?: number;
  /** SDK-level retries; 0 by default because Temporal's MODEL_CALL policy retries (see openai-call-failure.ts). */
  maxRetries?: number;
  /** Whether the GenAI span of each call may carry the prompt and the completion (RAGTIME_OTEL_CONTENT); no. */
  telemetry?: SpanContentPolicy;
};

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_MODEL_TIMEOUT_MS = 45_000;

/*
 * Structured outputs: the SDK's zodResponseFormat (openai 7.x converts zod 4 schemas itself) gives a strict
 * json_schema (every property required, additionalProperties false, defaults kept as annotations); the three
 * names are the ones issue 5 fixes. The reply is sent back as parsed JSON (`unknown`) on purpose: the activity
 * validates it with the same zod schema, so a schema violation takes the activity's retry-twice-then-fail path
 * (DESIGN §4) instead of an SDK exception.
 */
const FORMATS = {
  complexity_result: zodResponseFormat(ComplexityResult, 'complexity_result'),
  evidence_grade: zodResponseFormat(EvidenceGrade, 'evidence_grade'),
  rewrite_plan: zodResponseFormat(RewritePlan, 'rewrite_plan'),
  answer_draft: zodResponseFormat(AnswerDraft, 'answer_draft'),
};
type SchemaName = keyof typeof FORMATS;

/** A reply to quote in an error: short, on one line. */
const excerpt = (text: string) => JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);

/** ChatModels through an OpenAI-compatible chat-completions endpoint (DESIGN §6, spec §7), temperature 0. */
export function createOpenAiChatModels(options: OpenAiChatModelsOptions): ChatModels {
  const baseUrl = options.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
  const host = endpointHost(baseUrl);
  const policy = options.telemetry ?? NO_CONTENT;
  const { hostname, port } = new URL(baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const apiKey = options.apiKey ?? '';
  // Every option is explicit, so the SDK never falls back to its own process.env reads (activities get config).
  const client =
    apiKey === ''
      ? undefined
      : new OpenAI({
          apiKey,
          baseURL: baseUrl,
          organization: null,
          project: null,
          adminAPIKey: null,
          webhookSecret: null,
          timeout: timeoutMs,
          maxRetries: options.maxRetries ?? 0,
          logLevel: 'warn', // never 'debug': that would log prompts
        });

  const answerModel = options.answerModel || options.gradeModel;
  async function complete(schema: SchemaName, variable: 'FAST_MODEL' | 'GRADE_MODEL' | 'ANSWER_MODEL', message: UserMessage) {
    const model = variable === 'FAST_MODEL' ? options.fastModel : variable === 'GRADE_MODEL' ? options.gradeModel : answerModel;
    const needs = `the ${schema} call`;
    if (model === undefined || model === '') throw new RagError('MODEL_NOT_CONFIGURED', `${variable} is not set: ${needs} needs a model; set ${variable}`);
    if (client === undefined) throw new RagError('MODEL_NOT_CONFIGURED', `OPENAI_API_KEY is not set: ${needs} to ${model} needs one; set OPENAI_API_KEY`);
    const request = { model, schema, serverAddress: hostname, serverPort: port === '' ? undefined : Number(port), message };
    // One CLIENT span per request (OpenTelemetry GenAI conventions); token usage from the reply when it has one.
    return inSpan(chatSpanName(model), { kind: SpanKind.CLIENT, attributes: () => chatRequestAttributes(request, policy), policy }, async (span) => {
      let completion: ChatCompletion;
      const started = Date.now();
      try {
        completion = await client.chat.completions.create({ model, temperature: 0, messages: [message], response_format: FORMATS[schema] });
      } catch (error) {
        throw modelCallFailure(error, { model, modelVariable: variable, schema, host, timeoutMs, elapsedMs: Date.now() - started, apiKey });
      }
      addAttributes(span, () => chatResponseAttributes(completion, policy));
      return readReply(completion, model);
    });
  }

  return {
    describe: `openai fast=${options.fastModel || '(unset)'} grade=${options.gradeModel || '(unset)'} answer=${answerModel || '(unset)'} @ ${host}`,
    answerModel: answerModel || '(unset)',
    planComplexity: (question) => complete('complexity_result', 'FAST_MODEL', buildComplexityPrompt(question)),
    gradeEvidence: (question, context) => complete('evidence_grade', 'GRADE_MODEL', buildGraderPrompt(question, context)),
    planRewrite: (question) => complete('rewrite_plan', 'FAST_MODEL', buildRewritePrompt(question)),
    writeAnswer: ({ question, context, repair }) =>
      complete(
        'answer_draft',
        'ANSWER_MODEL',
        repair ? buildAnswerRepairPrompt(question, context, repair.previous, repair.verification) : buildAnswerPrompt(question, context),
      ),
  };
}

/**
 * The JSON object of a reply. A reply with no usable JSON (refusal, cut off, empty, not JSON) is a contract
 * violation like a schema-invalid one: RagError MODEL_OUTPUT_INVALID, which the activity counts against the same
 * budget of two retries (activities/model-output.ts).
 */
function readReply(completion: ChatCompletion, who: string): unknown {
  const choice = completion.choices?.[0];
  const invalid = (why: string) => new RagError('MODEL_OUTPUT_INVALID', `${who} ${why}`);
  if (choice === undefined) throw invalid('returned no choices');
  const { content, refusal } = choice.message;
  if (refusal) throw invalid(`refused: ${excerpt(refusal)}`);
  if (choice.finish_reason === 'length') throw invalid('reply was cut off at the token limit (finish_reason "length")');
  if (choice.finish_reason === 'content_filter') throw invalid('reply was withheld by the content filter');
  if (content === null || content.trim() === '') throw invalid('returned an empty reply');
  try {
    return JSON.parse(content) as unknown;
  } catch (error) {
    throw invalid(`replied with text that is not JSON (${(error as Error).message}): ${excerpt(content)}`);
  }
}

/** host[:port] of the endpoint, for messages and `describe` (never the path, query or credentials). */
function endpointHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    throw new RagError('INVALID_CONFIG', `OPENAI_BASE_URL is not a URL: set one such as ${OPENAI_DEFAULT_BASE_URL}`);
  }
}
