// The hosts' own ask-tool validators, as an oracle for askuser's parser
// (dialects/tests/differential/).
//
//   node validate.mjs <host> <dir>
//
// host: gemini | gemini-0.29 | opencode | opencode-1.1 | claude | claude-2.0 | mcp |
// mcp-1.17
// (the pinned current release of each, and an earlier one: docs/dialects.md,
// "Versions").
//
// <dir> holds the pinned packages (package.json and package-lock.json beside this
// file, installed by scripts/test-env: ASKUSER_TEST_HOSTS; for `mcp`, the MCP
// TypeScript SDK 1.32.2 that scripts/test-env installs: ASKUSER_TEST_TS_SDK). Reads one call's
// arguments (JSON) a line on stdin and prints, a line each, what the host does with
// it: {"accept": <meaning>} or {"refuse": "<the host's message>"}. A meaning is the
// form the host shows its person, with the defaults the host fills:
//
//   {"questions": [{"question", "header", "options": [[label, description|null]] | null,
//                   "multi": bool, "other": bool}]}
//
// `options` null is a free-text question; `other` says whether free text is offered
// beside the options. An `mcp` meaning is the elicitation form's fields instead:
//
//   {"questions": [{"id", "question", "kind": "boolean"|"text"|"schema"|"select"|"multi",
//                   "options": [[label, description|null]] | null, "context", "default"}]}

import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dialect, dir] = process.argv.slice(2);
if (!dialect || !dir) {
  console.error('usage: node validate.mjs <host> <packages dir>');
  process.exit(2);
}
const require = createRequire(join(dir, 'package.json'));

// Gemini CLI: its own AskUserTool (@google/gemini-cli-core): `build` runs the JSON
// schema check (ajv) and `validateToolParamValues`, then `createInvocation`
// normalises the texts. What the dialog shows per type is transcribed from
// packages/cli/src/ui/components/AskUserDialog.tsx: a `yesno` question is a choice
// of Yes and No plus free text, a `text` question ignores options.
async function gemini() {
  return geminiTool('@google/gemini-cli-core', { yesnoOther: true });
}

// Gemini CLI's AskUserTool from the package `name`: each question as its dialog
// shows it; `yesnoOther`: a `yesno` question offers free text too.
async function geminiTool(name, { yesnoOther }) {
  const path = join(dir, 'node_modules', name, 'dist/src/tools/ask-user.js');
  const { AskUserTool } = await import(pathToFileURL(path).href);
  const tool = new AskUserTool(undefined);
  return (call) => {
    const invocation = tool.build(call);
    const questions = invocation.params.questions.map((q) => {
      const base = { question: q.question, header: q.header ?? null };
      // A release that took `type` as optional read a missing one as `choice`.
      switch (q.type ?? 'choice') {
        case 'yesno':
          return { ...base, options: [['Yes', null], ['No', null]], multi: false, other: yesnoOther };
        case 'text':
          return { ...base, options: null, multi: false, other: false };
        default:
          return {
            ...base,
            options: q.options.map((o) => [o.label, o.description === '' ? null : o.description]),
            multi: q.multiSelect === true,
            other: true,
          };
      }
    });
    return { questions };
  };
}

// Gemini CLI 0.29.0, the last release where a question's `type` was optional: its
// own AskUserTool (npm alias `gemini-cli-core-0-29`), whose schema has no `type` in
// `required`, a `header` of at most 16 characters (ajv `maxLength`), and whose
// `validateToolParamValues` and `shouldConfirmExecute` read a missing type as
// `choice` (`q.type ?? QuestionType.CHOICE`). It does not unescape a literal `\n`
// nor trim descriptions (no `createInvocation` normalising). Its dialog
// (npm `@google/gemini-cli` 0.29.0, dist/src/ui/components/AskUserDialog.js) shows
// a `yesno` question as Yes and No without free text ("Only add custom option for
// choice type, not yesno").
async function gemini_0_29() {
  return geminiTool('gemini-cli-core-0-29', { yesnoOther: false });
}

// OpenCode: the `question` tool's zod schema, transcribed from anomalyco/opencode
// packages/opencode/src/question/index.ts @0197fee96cde (Question.Info, Option) and
// src/tool/question.ts @08103a5dbdee (`Question.Info.omit({ custom: true })`), run
// with the zod OpenCode pins (4.1.8, the root package.json's catalog). `custom`
// defaults to true: free text is always offered; no options is free text only.
function opencode() {
  const { z } = require('zod-opencode');
  const Option = z.object({
    label: z.string().describe('Display text (1-5 words, concise)'),
    description: z.string().describe('Explanation of choice'),
  });
  const Info = z.object({
    question: z.string().describe('Complete question'),
    header: z.string().describe('Very short label (max 30 chars)'),
    options: z.array(Option).describe('Available choices'),
    multiple: z.boolean().optional().describe('Allow selecting multiple choices'),
    custom: z.boolean().optional().describe('Allow typing a custom answer (default: true)'),
  });
  return opencodeShown(z.object({
    questions: z.array(Info.omit({ custom: true })).describe('Questions to ask'),
  }));
}

// OpenCode 1.1.16 (npm `opencode-linux-x64` 1.1.16, the bundle in bin/opencode:
// src/question/index.ts and src/tool/question.ts as built): `header` at most 12
// characters (`.max(12)`), no `custom` field (free text is always offered), the
// same result text; it bundles zod 4.1.8, the zod run here.
function opencode_1_1() {
  const { z } = require('zod-opencode');
  const Option = z.object({
    label: z.string().describe('Display text (1-5 words, concise)'),
    description: z.string().describe('Explanation of choice'),
  });
  const Info = z.object({
    question: z.string().describe('Complete question'),
    header: z.string().max(12).describe('Very short label (max 12 chars)'),
    options: z.array(Option).describe('Available choices'),
    multiple: z.boolean().optional().describe('Allow selecting multiple choices'),
  });
  return opencodeShown(z.object({ questions: z.array(Info).describe('Questions to ask') }));
}

// What OpenCode's dialog shows for calls `parameters` accepts.
function opencodeShown(parameters) {
  return (call) => {
    const params = parameters.parse(call);
    const questions = params.questions.map((q) => {
      const free = q.options.length === 0;
      return {
        question: q.question,
        header: q.header,
        options: free ? null : q.options.map((o) => [o.label, o.description]),
        multi: !free && q.multiple === true,
        other: !free,
      };
    });
    return { questions };
  };
}

// Claude Code: AskUserQuestion's input schema, transcribed from the bundle of npm
// `@anthropic-ai/claude-code` 2.1.332 (its linux-x64 binary, the chunk that defines
// the tool: `Ae = oe(Q())`, the default of `get inputSchema()`). Claude Code builds
// it with its own zod-like schema library (`u` = object that drops unknown keys,
// `xe` = strict object, `r` string, `M` boolean, `O` array, `Te` record), so it is
// run here with the zod that binary bundles, 4.6.2. Its feature-gated variants
// (`Oe`: option `description` optional; `ke`: `kind` text/number questions) are
// not the default and are not run. What the dialog shows: the options plus free
// text ("Other" is provided automatically), `multiSelect` defaulting to false.
function claude() {
  const { z } = require('zod-claude-code');
  const Option = z.object({
    label: z.string(),
    description: z.string(),
    preview: z.string().optional(),
  });
  const Question = z.object({
    question: z.string(),
    header: z.string().describe('Very short label displayed as a chip/tag (max 12 chars).'),
    options: z.array(Option).min(2).max(4),
    multiSelect: z.boolean().default(false),
  });
  const joined = z.preprocess(
    (v) => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? v.join(', ') : v),
    z.string(),
  );
  const Input = z
    .strictObject({
      questions: z.array(Question).min(1).max(4),
      answers: z.record(z.string(), joined).optional(),
      annotations: z
        .record(z.string(), z.object({ preview: z.string().optional(), notes: z.string().optional() }))
        .optional(),
      metadata: z.object({ source: z.string().optional() }).optional(),
    })
    .refine(claudeUnique, {
      message: 'Question texts must be unique, option labels must be unique within each question',
    });
  return (call) => ({ questions: Input.parse(call).questions.map(claudeShown) });
}

// Claude Code's refinement: question texts distinct, option labels distinct within
// a question.
function claudeUnique(input) {
  const texts = input.questions.map((q) => q.question);
  if (texts.length !== new Set(texts).size) return false;
  return input.questions.every((q) => {
    const labels = q.options.map((o) => o.label);
    return labels.length === new Set(labels).size;
  });
}

// What Claude Code's dialog shows for a parsed question: its options plus free text.
function claudeShown(q) {
  return {
    question: q.question,
    header: q.header,
    options: q.options.map((o) => [o.label, o.description]),
    multi: q.multiSelect,
    other: true,
  };
}

// Claude Code 2.0.77, an earlier release shipped as JavaScript (npm
// `@anthropic-ai/claude-code` 2.0.77, cli.js: `YN0`, the tool's `inputSchema`):
// a strict top-level object of `questions` (1-4) and `answers` (a record of
// strings) only (no `annotations` nor `metadata` yet), refined as in 2.1.332;
// options `{label, description}` without `preview` (unknown keys dropped), 2 to 4
// of them; `multiSelect` defaulting to false. The zod it bundles reports version
// 4.0.0; the schema uses nothing that differs in zod 4.6.2, which runs it here.
function claude_2_0() {
  const { z } = require('zod-claude-code');
  const Option = z.object({ label: z.string(), description: z.string() });
  const Question = z.object({
    question: z.string(),
    header: z.string(),
    options: z.array(Option).min(2).max(4),
    multiSelect: z.boolean().default(false),
  });
  const Input = z
    .strictObject({
      questions: z.array(Question).min(1).max(4),
      answers: z.record(z.string(), z.string()).optional(),
    })
    .refine(claudeUnique, {
      message: 'Question texts must be unique, option labels must be unique within each question',
    });
  return (call) => ({ questions: Input.parse(call).questions.map(claudeShown) });
}

// MCP elicitation: the MCP TypeScript SDK's own `ElicitRequestFormParamsSchema`
// (npm `@modelcontextprotocol/sdk` 1.32.2, `types.js`, zod 4: `message`,
// `requestedSchema` of `PrimitiveSchemaDefinitionSchema` fields). A client built on
// the SDK gets the parsed params: unknown keys dropped, each field the first of the
// union's schemas it fits. The meaning is the form that asks those fields, by the
// rules of docs/dialects.md ("mcp"): a field's title (else its name) is the
// question, its description the context, `message` the first field's context.
function mcp() {
  const { ElicitRequestFormParamsSchema } = require('@modelcontextprotocol/sdk/types.js');
  const field = (id, f) => {
    let kind = 'schema';
    let options = null;
    if (f.type === 'boolean') {
      kind = 'boolean';
    } else if (f.type === 'array') {
      kind = 'multi';
      options = f.items.anyOf
        ? f.items.anyOf.map((o) => described(o.const, o.title))
        : f.items.enum.map((v) => [v, null]);
    } else if (f.oneOf) {
      kind = 'select';
      options = f.oneOf.map((o) => described(o.const, o.title));
    } else if (f.enum) {
      kind = 'select';
      options = f.enum.map((v, i) => described(v, f.enumNames?.[i]));
    } else if (f.type === 'string' && ['minLength', 'maxLength', 'format'].every((k) => !(k in f))) {
      kind = 'text';
    }
    return mcpQuestion(id, f, kind, options);
  };
  return (call) => mcpForm(ElicitRequestFormParamsSchema.parse(call), field);
}

// MCP elicitation as specification 2025-06-18 defined it: the TypeScript SDK
// 1.17.5's own `ElicitRequestSchema` params (npm alias `mcp-sdk-1-17`,
// dist/cjs/types.js, zod 3): `requestedSchema.properties` of
// `PrimitiveSchemaDefinitionSchema` (boolean, string with `minLength`, `maxLength`,
// `format`, number or integer with `minimum`, `maximum`, string with `enum` and
// `enumNames`; no arrays), every object `passthrough` (unknown keys such as `oneOf`,
// `default` on any field or `mode` kept, not checked). A 2025-06-18 client shows
// what that specification defines: a string's `enum` of strings as a single-select
// (`enumNames` its titles), other strings as text or, with `minLength`, `maxLength`
// or `format`, checked text; it knows no `oneOf`.
function mcp_1_17() {
  const { ElicitRequestSchema } = require('mcp-sdk-1-17/types.js');
  const params = ElicitRequestSchema.shape.params;
  const strings = (v) => Array.isArray(v) && v.every((s) => typeof s === 'string');
  const field = (id, f) => {
    let kind = 'schema';
    let options = null;
    if (f.type === 'boolean') {
      kind = 'boolean';
    } else if (f.type === 'string' && strings(f.enum)) {
      kind = 'select';
      const names = strings(f.enumNames) ? f.enumNames : [];
      options = f.enum.map((v, i) => described(v, names[i]));
    } else if (f.type === 'string' && ['minLength', 'maxLength', 'format'].every((k) => !(k in f))) {
      kind = 'text';
    }
    return mcpQuestion(id, f, kind, options);
  };
  return (call) => mcpForm(params.parse(call), field);
}

const blank = (s) => s === undefined || s.trim() === '';
const described = (label, title) => [label, title === undefined || title === label ? null : title];

// One field's question: its title (else its name), its description as context.
function mcpQuestion(id, f, kind, options) {
  const question = blank(f.title) ? id : f.title.trim();
  const context = blank(f.description) ? null : f.description;
  return { id, question, kind, options, context, default: f.default ?? null };
}

// The form of parsed params, `message` the first question's context.
function mcpForm(params, field) {
  const questions = Object.entries(params.requestedSchema.properties).map(([id, f]) => field(id, f));
  const first = questions[0];
  if (first && !blank(params.message)) {
    first.context = first.context === null ? params.message : `${params.message}\n\n${first.context}`;
  }
  return { questions };
}

const validators = {
  gemini,
  'gemini-0.29': gemini_0_29,
  opencode,
  'opencode-1.1': opencode_1_1,
  claude,
  'claude-2.0': claude_2_0,
  mcp,
  'mcp-1.17': mcp_1_17,
};
if (!validators[dialect]) {
  console.error(`unknown dialect ${dialect}; known: ${Object.keys(validators).join(', ')}`);
  process.exit(2);
}
const validate = await validators[dialect]();
const out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === '') continue;
  try {
    out.push(JSON.stringify({ accept: validate(JSON.parse(line)) }));
  } catch (error) {
    out.push(JSON.stringify({ refuse: String(error?.message ?? error) }));
  }
}
process.stdout.write(out.join('\n') + '\n');
