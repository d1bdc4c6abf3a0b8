// The engine benchmark's walk (benches/data/form.json: 10 questions, 4 gated by
// `when`; answer every visible question, Back once at question 5, re-answer it,
// complete) as an XState 5 machine, driven through XState's pure
// `initialTransition` + `transition`: 13 events a walk, as `count_walk` (testkit/examples) applies
// them to the reducer (the request, then 12). Each question is a state; a gated
// question is skipped by an eventless (`always`) transition; an answer is checked
// against the question's type and options by a guard and recorded in the context;
// Back returns to the last question answered.
//
//   node benches/xstate/walk.mjs [WALKS]     (after `npm install` in this folder,
//                                             or with NODE_PATH set to a node_modules)
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.env.XSTATE_FROM ?? import.meta.url);
const { setup, assign, initialTransition, transition } = require("xstate");

const data = JSON.parse(
  readFileSync(new URL("../data/form.json", import.meta.url), "utf8"),
);
const questions = data.questions;

function fits(question, value) {
  switch (question.answer_type) {
    case "boolean":
      return typeof value === "boolean";
    case "text":
      return typeof value === "string";
    case "select":
      return question.options.includes(value);
    case "multi_select":
      return (
        Array.isArray(value) &&
        value.every((v) => question.options.includes(v))
      );
    default:
      return false;
  }
}

function shows(question, answers) {
  const when = question.when;
  return !when || answers[when.question_id] === when.equals;
}

const states = {};
questions.forEach((question, index) => {
  const next = index + 1 < questions.length ? `q${index + 1}` : "done";
  const backs = questions.slice(0, index).map((_, target) => ({
    guard: ({ context }) => context.history.at(-1) === target,
    target: `q${target}`,
    actions: "back",
  }));
  states[`q${index}`] = {
    always: question.when
      ? [{ guard: ({ context }) => !shows(question, context.answers), target: next }]
      : [],
    on: {
      ANSWER: {
        guard: ({ event }) =>
          event.question === question.id && fits(question, event.value),
        target: next,
        actions: assign(({ context, event }) => ({
          answers: { ...context.answers, [question.id]: event.value },
          history: [...context.history, index],
        })),
      },
      BACK: backs.reverse(),
    },
  };
});
states.done = { type: "final" };

const machine = setup({
  actions: {
    back: assign(({ context }) => {
      const history = context.history.slice(0, -1);
      const target = context.history.at(-1);
      const answers = { ...context.answers };
      for (const q of questions.slice(target)) delete answers[q.id];
      return { answers, history };
    }),
  },
}).createMachine({
  id: "bench",
  initial: "q0",
  context: { answers: {}, history: [] },
  states,
});

const events = data.walk.map((step) =>
  step[0] === "back"
    ? { type: "BACK" }
    : { type: "ANSWER", question: step[1], value: step[2] },
);

function walk() {
  let [snapshot] = initialTransition(machine);
  for (const event of events) {
    [snapshot] = transition(machine, snapshot, event);
  }
  if (snapshot.status !== "done") throw new Error(`walk ended in ${snapshot.value}`);
  return snapshot;
}

const walks = Number(process.argv[2] ?? 20000);
for (let i = 0; i < Math.min(walks, 2000); i++) walk(); // warm the JIT
const started = process.hrtime.bigint();
for (let i = 0; i < walks; i++) walk();
const ns = Number(process.hrtime.bigint() - started);
const perEvent = ns / (walks * (events.length + 1));
console.log(
  `xstate ${walks} walks of ${events.length + 1} events: ${(ns / 1e6).toFixed(1)} ms, ` +
    `${perEvent.toFixed(0)} ns an event, ${(1e9 / perEvent).toFixed(0)} events/s`,
);
