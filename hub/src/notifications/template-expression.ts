/**
 * The expressions inside `${…}` of notification templates: a small, closed language parsed here
 * and interpreted by template-evaluate.ts, never handed to eval or Function. It has property
 * paths (`container.updateKind.kind`, `containers[0].name`, `containers.length`), string, number,
 * boolean and null literals, `!`, `+`, comparisons, `&&`, `||`, `??`, the ternary and parentheses.
 * There are no calls, assignments or `new`, so a template can read its data and nothing else.
 */

export type BinaryOperator = '||' | '??' | '&&' | '===' | '!==' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '+';

export type Expression =
  | { type: 'literal'; value: string | number | boolean | null | undefined }
  | { type: 'identifier'; name: string }
  | { type: 'member'; object: Expression; property: Expression }
  | { type: 'not'; operand: Expression }
  | { type: 'binary'; operator: BinaryOperator; left: Expression; right: Expression }
  | { type: 'conditional'; test: Expression; consequent: Expression; alternate: Expression };

export class TemplateSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at ${position}`);
    this.name = 'TemplateSyntaxError';
  }
}

type Token =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'string'; value: string; at: number }
  | { kind: 'name'; value: string; at: number }
  | { kind: 'punct'; value: string; at: number }
  | { kind: 'end'; at: number };

/** Bounds that keep a hostile template cheap: it is parsed once, but still must not blow the stack. */
const MAX_TOKENS = 2_000;
/** Parentheses, brackets, ternaries and `!` inside one another; each costs the parser about ten frames. */
const MAX_NESTING = 40;

// Longest first, so `===` is not read as `==` then `=`.
const PUNCTUATORS = [
  '===',
  '!==',
  '==',
  '!=',
  '<=',
  '>=',
  '||',
  '??',
  '&&',
  '?.',
  '<',
  '>',
  '!',
  '+',
  '.',
  '[',
  ']',
  '(',
  ')',
  '?',
  ':',
];
const KEYWORDS: Readonly<Record<string, string | number | boolean | null | undefined>> = {
  true: true,
  false: false,
  null: null,
  undefined: undefined,
};
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '0': '\0' };

const isDigit = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '9';
const isNameStart = (ch: string) => /[A-Za-z_$]/.test(ch);
const isNamePart = (ch: string) => /[A-Za-z0-9_$]/.test(ch);

/**
 * Reads tokens from `source` starting at `start` until a `}` outside any string literal (the end
 * of a `${…}`), or the end of the text when `untilBrace` is false. Returns where it stopped.
 */
export function tokenize(source: string, start: number, untilBrace: boolean): { tokens: Token[]; end: number } {
  const tokens: Token[] = [];
  let i = start;
  while (i < source.length) {
    const ch = source[i] as string;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      i++;
      continue;
    }
    if (ch === '}' && untilBrace) return { tokens: [...tokens, { kind: 'end', at: i }], end: i };
    if (tokens.length >= MAX_TOKENS) throw new TemplateSyntaxError('expression too long', i);
    if (isDigit(ch) || (ch === '.' && isDigit(source[i + 1]))) {
      const match = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(source.slice(i, i + 64)) as RegExpExecArray;
      tokens.push({ kind: 'number', value: Number(match[0]), at: i });
      i += match[0].length;
      continue;
    }
    if (ch === "'" || ch === '"') {
      const read = readString(source, i);
      tokens.push({ kind: 'string', value: read.value, at: i });
      i = read.end;
      continue;
    }
    if (isNameStart(ch)) {
      let j = i + 1;
      while (j < source.length && isNamePart(source[j] as string)) j++;
      tokens.push({ kind: 'name', value: source.slice(i, j), at: i });
      i = j;
      continue;
    }
    const punct = PUNCTUATORS.find((p) => source.startsWith(p, i));
    if (!punct) throw new TemplateSyntaxError(`unexpected character ${JSON.stringify(ch)}`, i);
    // `a?.5:1` is a ternary with .5, as in JavaScript; `?.` is optional chaining only before a name.
    if (punct === '?.' && isDigit(source[i + 2])) {
      tokens.push({ kind: 'punct', value: '?', at: i });
      i++;
      continue;
    }
    tokens.push({ kind: 'punct', value: punct === '?.' ? '.' : punct, at: i });
    i += punct.length;
  }
  if (untilBrace) throw new TemplateSyntaxError('missing } after the expression', i);
  return { tokens: [...tokens, { kind: 'end', at: i }], end: i };
}

function readString(source: string, start: number): { value: string; end: number } {
  const quote = source[start];
  let value = '';
  let i = start + 1;
  while (i < source.length) {
    const ch = source[i] as string;
    if (ch === quote) return { value, end: i + 1 };
    if (ch === '\\' && i + 1 < source.length) {
      const next = source[i + 1] as string;
      value += ESCAPES[next] ?? next;
      i += 2;
      continue;
    }
    value += ch;
    i++;
  }
  throw new TemplateSyntaxError('unterminated string', start);
}

/** Precedence climbing over the binary operators, lowest first, as in JavaScript. */
const LEVELS: readonly (readonly BinaryOperator[])[] = [
  ['||', '??'],
  ['&&'],
  ['===', '!==', '==', '!='],
  ['<', '<=', '>', '>='],
  ['+'],
];

class Parser {
  private index = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): Expression {
    const expression = this.conditional(0);
    const next = this.peek();
    if (next.kind !== 'end') throw new TemplateSyntaxError('unexpected token', next.at);
    return expression;
  }

  private peek(): Token {
    return this.tokens[this.index] as Token;
  }

  private take(): Token {
    return this.tokens[this.index++] as Token;
  }

  private isPunct(value: string): boolean {
    const token = this.peek();
    return token.kind === 'punct' && token.value === value;
  }

  private expect(value: string): void {
    const token = this.take();
    if (token.kind !== 'punct' || token.value !== value) throw new TemplateSyntaxError(`expected ${value}`, token.at);
  }

  /** `nesting` counts the constructs that recurse (parentheses, brackets, ternaries, `!`), not every call. */
  private conditional(nesting: number): Expression {
    if (nesting > MAX_NESTING) throw new TemplateSyntaxError('expression nested too deeply', this.peek().at);
    const test = this.binary(0, nesting);
    if (!this.isPunct('?')) return test;
    this.take();
    const consequent = this.conditional(nesting + 1);
    this.expect(':');
    const alternate = this.conditional(nesting + 1);
    return { type: 'conditional', test, consequent, alternate };
  }

  private binary(level: number, nesting: number): Expression {
    const operators = LEVELS[level];
    if (!operators) return this.unary(nesting);
    let left = this.binary(level + 1, nesting);
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'punct' || !(operators as readonly string[]).includes(token.value)) return left;
      this.take();
      const right = this.binary(level + 1, nesting);
      left = { type: 'binary', operator: token.value as BinaryOperator, left, right };
    }
  }

  private unary(nesting: number): Expression {
    if (!this.isPunct('!')) return this.postfix(nesting);
    if (nesting > MAX_NESTING) throw new TemplateSyntaxError('expression nested too deeply', this.peek().at);
    this.take();
    return { type: 'not', operand: this.unary(nesting + 1) };
  }

  private postfix(nesting: number): Expression {
    let expression = this.primary(nesting);
    for (;;) {
      if (this.isPunct('.')) {
        this.take();
        const name = this.take();
        if (name.kind !== 'name') throw new TemplateSyntaxError('expected a property name', name.at);
        expression = { type: 'member', object: expression, property: { type: 'literal', value: name.value } };
      } else if (this.isPunct('[')) {
        this.take();
        const property = this.conditional(nesting + 1);
        this.expect(']');
        expression = { type: 'member', object: expression, property };
      } else {
        return expression;
      }
    }
  }

  private primary(nesting: number): Expression {
    const token = this.take();
    switch (token.kind) {
      case 'number':
      case 'string':
        return { type: 'literal', value: token.value };
      case 'name':
        return Object.hasOwn(KEYWORDS, token.value)
          ? { type: 'literal', value: KEYWORDS[token.value] }
          : { type: 'identifier', name: token.value };
      case 'punct':
        if (token.value === '(') {
          const inner = this.conditional(nesting + 1);
          this.expect(')');
          return inner;
        }
        throw new TemplateSyntaxError(`unexpected ${token.value}`, token.at);
      default:
        throw new TemplateSyntaxError('missing expression', token.at);
    }
  }
}

/** Parses one expression (the inside of `${…}`) from its tokens. */
export function parseTokens(tokens: Token[]): Expression {
  return new Parser(tokens).parse();
}

/** Parses a whole expression string: for tests and for callers outside templates. */
export function parseExpression(source: string): Expression {
  return parseTokens(tokenize(source, 0, false).tokens);
}
