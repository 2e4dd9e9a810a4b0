import { SpanKind } from '@opentelemetry/api';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { RagError } from '../../core/errors';
import { describeOpenAiModels } from '../../core/run/answered-by';
import type { OutputModeSetting } from '../../core/model-output/output-mode';
import type { JsonSchema } from '../../core/model-output/structured-request';
import { buildAnswerPrompt, buildAnswerRepairPrompt } from '../../core/prompts/answer-prompt';
import { buildComplexityPrompt } from '../../core/prompts/complexity-prompt';
import { buildCondensePrompt } from '../../core/prompts/condense-prompt';
import { buildGraderPrompt } from '../../core/prompts/grader-prompt';
import { buildIntentReplyPrompt } from '../../core/prompts/intent-reply-prompt';
import { buildRewritePrompt } from '../../core/prompts/rewrite-prompt';
import { DOCTOR_PROBE_PROMPT } from '../../core/prompts/structured-output-prompt';
import type { UserMessage } from '../../core/prompts/user-message';
import { AnswerDraft } from '../../core/schemas/answer';
import { StandaloneQuestion } from '../../core/schemas/conversation';
import { IntentReply } from '../../core/schemas/intent';
import type { ModelPlan } from '../../core/schemas/model-call';
import { ComplexityResult, EvidenceGrade, RewritePlan } from '../../core/schemas/model-outputs';
import type { CallReport, ChatModels, ModelProbe } from '../ports';
import { chatResponseAttributes, chatRequestAttributes, chatSpanName } from '../telemetry/gen-ai';
import { addAttributes, inSpan, NO_CONTENT, type SpanContentPolicy } from '../telemetry/spans';
import { createModelCapabilities, type ModelCapabilities } from './model-capabilities';
import { modelCallFailure } from './openai-call-failure';
import { normalizingFetch } from './normalize-error-body';
import { structuredCall, type StructuredTarget } from './openai-structured-call';

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
  /** MODEL_OUTPUT_MODE (issue 24): default auto. */
  outputMode?: OutputModeSetting;
  /** MODEL_TEMPERATURE: unset, 0 except for models known to refuse it. */
  temperature?: number;
  /** Per request. Below MODEL_CALL's 60 s start-to-close, so a slow model fails with a readable message first. */
  timeoutMs?: number;
  /** SDK-level retries; 0 by default because Temporal's MODEL_CALL policy retries (see openai-call-failure.ts). */
  maxRetries?: number;
  /** Whether the GenAI span of each call may carry the prompt and the completion (RAGTIME_OTEL_CONTENT); no. */
  telemetry?: SpanContentPolicy;
  /** What the ladder learnt, shared by adapters of one process (default: this adapter's own). */
  capabilities?: ModelCapabilities;
  /** Told when a model's rung or temperature changes (the worker logs it). */
  onLearn?: (line: string) => void;
};

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export { DEFAULT_MODEL_TIMEOUT_MS } from '../../core/model-output/timeouts';
import { DEFAULT_MODEL_TIMEOUT_MS } from '../../core/model-output/timeouts';

/** `ragtime doctor`'s probe: the smallest object a model can be asked for. */
export const DoctorProbe = z.object({ ok: z.boolean() });

/*
 * The structured outputs, by the names issue 5 fixes. The JSON Schemas are the SDK's zodResponseFormat conversion
 * (strict: every property required, additionalProperties false, defaults kept as annotations); the ladder sends them
 * as json_schema, as a function's parameters, or in the prompt. The zod schemas validate every reply, on every rung.
 */
const SCHEMAS = {
  complexity_result: ComplexityResult,
  evidence_grade: EvidenceGrade,
  rewrite_plan: RewritePlan,
  answer_draft: AnswerDraft,
  standalone_question: StandaloneQuestion,
  intent_reply: IntentReply,
  doctor_probe: DoctorProbe,
} satisfies Record<string, z.ZodType>;
type SchemaName = keyof typeof SCHEMAS;
export const JSON_SCHEMAS = Object.fromEntries(
  Object.entries(SCHEMAS).map(([name, schema]) => [name, zodResponseFormat(schema, name).json_schema.schema as JsonSchema]),
) as Record<SchemaName, JsonSchema>;

type ModelVariable = 'FAST_MODEL' | 'GRADE_MODEL' | 'ANSWER_MODEL';

/** ChatModels through an OpenAI-compatible chat-completions endpoint (DESIGN §6, spec §7), through the ladder. */
export function createOpenAiChatModels(options: OpenAiChatModelsOptions): ChatModels {
  const baseUrl = options.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
  const host = endpointHost(baseUrl);
  const policy = options.telemetry ?? NO_CONTENT;
  const { hostname, port } = new URL(baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const apiKey = options.apiKey ?? '';
  const capabilities = options.capabilities ?? createModelCapabilities({ outputMode: options.outputMode ?? 'auto', temperature: options.temperature, onLearn: options.onLearn });
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
          fetch: normalizingFetch(),
        });

  const answerModel = options.answerModel || options.gradeModel;
  const variables = { FAST_MODEL: options.fastModel, GRADE_MODEL: options.gradeModel, ANSWER_MODEL: answerModel };
  const modelOf = (variable: ModelVariable) => variables[variable];

  async function complete(schema: SchemaName, variable: ModelVariable, message: UserMessage, report?: CallReport, stream?: StructuredTarget['stream']) {
    const model = modelOf(variable);
    const needs = `the ${schema} call`;
    if (model === undefined || model === '') throw new RagError('MODEL_NOT_CONFIGURED', `${variable} is not set: ${needs} needs a model; set ${variable}`);
    if (client === undefined) throw new RagError('MODEL_NOT_CONFIGURED', `OPENAI_API_KEY is not set: ${needs} to ${model} needs one; set OPENAI_API_KEY`);
    const planned = capabilities.planOf(baseUrl, model);
    const request = { model, schema, serverAddress: hostname, serverPort: port === '' ? undefined : Number(port), message, temperature: planned.temperature };
    // One CLIENT span per call (OpenTelemetry GenAI conventions), refusals and the re-ask included.
    return inSpan(chatSpanName(model), { kind: SpanKind.CLIENT, attributes: () => chatRequestAttributes(request, policy), policy }, async (span) => {
      const started = Date.now();
      const { reply, record } = await structuredCall(
        { client, capabilities, baseUrl, host, model, name: schema, schema: SCHEMAS[schema], jsonSchema: JSON_SCHEMAS[schema], message, report, stream, onCompletion: (completion) => addAttributes(span, () => chatResponseAttributes(completion, policy)) },
        ({ error, refused, mode, temperature }) =>
          modelCallFailure(error, {
            model,
            modelVariable: variable,
            schema,
            host,
            timeoutMs,
            elapsedMs: Date.now() - started,
            apiKey,
            ladder: { refused, mode, temperature, outputSetting: capabilities.settings.outputMode, temperatureSet: capabilities.settings.temperature !== undefined },
          }),
      );
      addAttributes(span, () => ({
        'ragtime.model.output_mode': record.outputMode,
        'ragtime.model.requests': record.requests,
        ...(record.temperature === null ? {} : { 'gen_ai.request.temperature': record.temperature }),
      }));
      return reply;
    });
  }

  const plans = (): ModelPlan[] => capabilities.plans(variables, baseUrl, host);

  async function probe(): Promise<ModelProbe[]> {
    const distinct = [...new Map((Object.keys(variables) as ModelVariable[]).flatMap((v) => (modelOf(v) ? [[modelOf(v), v] as const] : []))).values()];
    return Promise.all(
      distinct.map(async (variable): Promise<ModelProbe> => {
        const started = Date.now();
        const model = modelOf(variable) as string;
        const planOf = () => plans().find((plan) => plan.model === model) as ModelPlan;
        try {
          const reply = await complete('doctor_probe', variable, { role: 'user', content: DOCTOR_PROBE_PROMPT });
          const valid = DoctorProbe.safeParse(reply).success;
          return { plan: planOf(), ok: valid, detail: valid ? 'answered the probe' : `answered, but not with {"ok": boolean}: ${JSON.stringify(reply).slice(0, 120)}`, ms: Date.now() - started };
        } catch (error) {
          return { plan: planOf(), ok: false, detail: error instanceof Error ? error.message : String(error), ms: Date.now() - started };
        }
      }),
    );
  }

  return {
    describe: describeOpenAiModels({ fast: options.fastModel, grade: options.gradeModel, answer: answerModel, host }),
    answerModel: answerModel || '(unset)',
    planComplexity: (question, report) => complete('complexity_result', 'FAST_MODEL', buildComplexityPrompt(question), report),
    gradeEvidence: (question, context, _evidence, report) => complete('evidence_grade', 'GRADE_MODEL', buildGraderPrompt(question, context), report),
    planRewrite: (question, report) => complete('rewrite_plan', 'FAST_MODEL', buildRewritePrompt(question), report),
    // With a listener, the draft's `answer` streams as it is written (issue 25 §2); without one, nothing changes.
    writeAnswer: ({ question, context, repair, conversation, onText }, report) =>
      complete(
        'answer_draft',
        'ANSWER_MODEL',
        repair
          ? buildAnswerRepairPrompt(question, context, repair.previous, repair.verification, conversation)
          : buildAnswerPrompt(question, context, conversation),
        report,
        onText ? { field: 'answer', onText } : undefined,
      ),
    condenseQuestion: (question, turns, report) => complete('standalone_question', 'FAST_MODEL', buildCondensePrompt(question, turns), report),
    // The reply is said to a person, so the answer model writes it (issue 44 §5).
    replyWithoutRetrieval: (question, intent, turns, report) => complete('intent_reply', 'ANSWER_MODEL', buildIntentReplyPrompt(question, intent, turns), report),
    plans,
    probe,
  };
}

/** host[:port] of the endpoint, for messages and `describe` (never the path, query or credentials). */
function endpointHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    throw new RagError('INVALID_CONFIG', `OPENAI_BASE_URL is not a URL: set one such as ${OPENAI_DEFAULT_BASE_URL}`);
  }
}
