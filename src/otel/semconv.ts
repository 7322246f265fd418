// The OpenTelemetry GenAI semantic-convention names agentwire emits. The GenAI conventions are
// incubating (Development status): OpenTelemetry asks libraries to copy the names they use
// instead of importing `@opentelemetry/semantic-conventions/incubating` at run time, so they are
// copied here and test/otel/semconv.test.ts holds every one equal to the package's own constant
// (`@opentelemetry/semantic-conventions` 1.45.0, a dev dependency). docs/otel.md names the version.

/** `gen_ai.operation.name`. */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** `gen_ai.provider.name`. */
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
/** `gen_ai.agent.name`. */
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
/** `gen_ai.agent.id`. */
export const ATTR_GEN_AI_AGENT_ID = 'gen_ai.agent.id';
/** `gen_ai.agent.description`. */
export const ATTR_GEN_AI_AGENT_DESCRIPTION = 'gen_ai.agent.description';
/** `gen_ai.conversation.id`. */
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
/** `gen_ai.request.model`. */
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
/** `gen_ai.response.model`. */
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
/** `gen_ai.response.finish_reasons`. */
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
/** `gen_ai.usage.input_tokens`: all input tokens, cached ones included. */
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
/** `gen_ai.usage.output_tokens`. */
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
/** `gen_ai.usage.cache_read.input_tokens`. */
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
/** `gen_ai.usage.cache_creation.input_tokens`. */
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = 'gen_ai.usage.cache_creation.input_tokens';
/** `gen_ai.usage.reasoning.output_tokens`. */
export const ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = 'gen_ai.usage.reasoning.output_tokens';
/** `gen_ai.tool.name`. */
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
/** `gen_ai.tool.call.id`. */
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
/** `gen_ai.tool.type`. */
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
/** `gen_ai.tool.call.arguments` (opt-in content). */
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
/** `gen_ai.tool.call.result` (opt-in content). */
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
/** `gen_ai.input.messages` (opt-in content). */
export const ATTR_GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
/** `gen_ai.output.messages` (opt-in content). */
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
/** `error.type` (stable). */
export const ATTR_ERROR_TYPE = 'error.type';

/** `gen_ai.operation.name` value for an agent run. */
export const GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT = 'invoke_agent';
/** `gen_ai.operation.name` value for a model round. */
export const GEN_AI_OPERATION_NAME_VALUE_CHAT = 'chat';
/** `gen_ai.operation.name` value for a tool call. */
export const GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL = 'execute_tool';

/** `gen_ai.provider.name` values agentwire can tell from a format. */
export const GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC = 'anthropic';
/** `gen_ai.provider.name` for OpenAI. */
export const GEN_AI_PROVIDER_NAME_VALUE_OPENAI = 'openai';
/** `gen_ai.provider.name` for Gemini (AI Studio API). */
export const GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI = 'gcp.gemini';
