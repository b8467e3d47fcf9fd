/**
 * A calculator tool for the seed demos: a tiny recursive-descent parser for arithmetic
 * (+ - * / % ^, parentheses, unary minus). It never calls `eval`, so the model cannot run code.
 */
import type { AgentTool } from "@gyre/agent";
import { Type } from "@sinclair/typebox";

const parameters = Type.Object(
  { expression: Type.String({ description: 'An arithmetic expression, e.g. "12*8" or "(1+2)^3 / 4".' }) },
  { additionalProperties: false },
);

/** The `calc` tool: evaluates an expression and answers with the number. */
export const calcTool: AgentTool<typeof parameters> = {
  name: "calc",
  label: "Calculator",
  description: "Evaluates an arithmetic expression with + - * / % ^ and parentheses. Use it for any arithmetic.",
  parameters,
  execute: async ({ expression }) => {
    const value = evaluate(expression);
    return { content: [{ type: "text", text: String(value) }], details: { expression, value } };
  },
};

type Token = { kind: "number"; value: number } | { kind: "op"; value: string };

/** Evaluates `expression`; throws an error written for the model on bad input or division by zero. */
export function evaluate(expression: string): number {
  const tokens = tokenize(expression);
  let at = 0;
  const peek = () => tokens[at];
  const take = (op: string) => {
    const token = peek();
    if (token?.kind === "op" && token.value === op) {
      at++;
      return true;
    }
    return false;
  };
  const sum = (): number => {
    let value = product();
    while (true) {
      if (take("+")) value += product();
      else if (take("-")) value -= product();
      else return value;
    }
  };
  const product = (): number => {
    let value = unary();
    while (true) {
      if (take("*")) value *= unary();
      else if (take("/")) value = divide(value, unary(), "/");
      else if (take("%")) value = divide(value, unary(), "%");
      else return value;
    }
  };
  const unary = (): number => (take("-") ? -unary() : take("+") ? unary() : power());
  const power = (): number => {
    const base = primary();
    return take("^") ? base ** unary() : base;
  };
  const primary = (): number => {
    const token = peek();
    if (token?.kind === "number") {
      at++;
      return token.value;
    }
    if (take("(")) {
      const value = sum();
      if (!take(")")) throw new Error(`Missing ")" in "${expression}"; close every parenthesis.`);
      return value;
    }
    throw new Error(
      `Unexpected ${token ? `"${token.value}"` : "end of input"} in "${expression}"; write a number or "(" there.`,
    );
  };
  const divide = (left: number, right: number, op: "/" | "%") => {
    if (right === 0)
      throw new Error(`Division by zero in "${expression}": the divisor is 0, so the result is undefined.`);
    return op === "/" ? left / right : left % right;
  };
  const value = sum();
  if (at < tokens.length) throw new Error(`Unexpected "${peek()?.value}" in "${expression}"; remove it.`);
  return value;
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(\d+(?:\.\d+)?|\.\d+)|([-+*/%^()]))/y;
  let at = 0;
  while (at < expression.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(expression);
    if (!match) {
      if (expression.slice(at).trim() === "") break;
      throw new Error(
        `Cannot read "${expression.slice(at).trim()}" in "${expression}"; use only numbers, + - * / % ^ and parentheses.`,
      );
    }
    at = pattern.lastIndex;
    if (match[1] !== undefined) tokens.push({ kind: "number", value: Number(match[1]) });
    else if (match[2] !== undefined) tokens.push({ kind: "op", value: match[2] });
  }
  return tokens;
}
