import type { Expression } from './template-expression';

/** Values a template can see: JSON data (the container as the API shows it, counts, names). */
export type TemplateValue = unknown;

/** Names that lead from data to code in JavaScript; they read as missing, whatever the data holds. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * One property step, safe by construction: only own properties of plain objects, array elements
 * and `length`, and a string's `length`. Everything else (inherited members, functions, getters
 * of class instances, the names above) is undefined, so `${container.constructor}` prints nothing.
 */
export function readProperty(object: TemplateValue, key: TemplateValue): TemplateValue {
  if (typeof key !== 'string' && typeof key !== 'number') return undefined;
  const name = String(key);
  if (FORBIDDEN.has(name)) return undefined;
  if (typeof object === 'string') return name === 'length' ? object.length : undefined;
  if (Array.isArray(object)) {
    if (name === 'length') return object.length;
    if (!/^(0|[1-9]\d{0,8})$/.test(name)) return undefined;
    const index = Number(name);
    return index < object.length ? guard(object[index]) : undefined;
  }
  if (!isPlainObject(object) || !Object.hasOwn(object, name)) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(object, name);
  // A getter is code; data passed to templates has none, and a hostile one must not run.
  return descriptor && 'value' in descriptor ? guard(descriptor.value) : undefined;
}

const guard = (value: unknown): TemplateValue =>
  typeof value === 'function' || typeof value === 'symbol' ? undefined : value;

const truthy = (value: TemplateValue): boolean => Boolean(value);

const isObject = (value: TemplateValue): boolean => typeof value === 'object' && value !== null;

/** JavaScript's ToNumber for primitives; objects (never printed as `[object Object]`) are NaN. */
const toNumber = (value: TemplateValue): number => (isObject(value) ? Number.NaN : Number(value));

/** JavaScript's String for primitives; objects and arrays are empty, a bigint cannot occur. */
const toText = (value: TemplateValue): string => (isObject(value) ? '' : String(value));

function add(left: TemplateValue, right: TemplateValue): TemplateValue {
  if (typeof left === 'string' || typeof right === 'string' || isObject(left) || isObject(right)) {
    return toText(left) + toText(right);
  }
  return toNumber(left) + toNumber(right);
}

/** `<` and friends as JavaScript does on primitives: strings by code units, everything else as numbers. */
function compare(operator: '<' | '<=' | '>' | '>=', left: TemplateValue, right: TemplateValue): boolean {
  if (isObject(left) || isObject(right)) return false;
  if (typeof left === 'string' && typeof right === 'string') {
    if (operator === '<') return left < right;
    if (operator === '<=') return left <= right;
    if (operator === '>') return left > right;
    return left >= right;
  }
  const a = toNumber(left);
  const b = toNumber(right);
  if (operator === '<') return a < b;
  if (operator === '<=') return a <= b;
  if (operator === '>') return a > b;
  return a >= b;
}

/** `==` is strict equality, except that null and undefined are equal (the one loose rule worth having). */
const looseEquals = (left: TemplateValue, right: TemplateValue): boolean =>
  (left == null && right == null) || left === right;

/** Evaluates a parsed expression over `scope`; never throws, never calls anything. */
export function evaluate(expression: Expression, scope: Readonly<Record<string, TemplateValue>>): TemplateValue {
  switch (expression.type) {
    case 'literal':
      return expression.value;
    case 'identifier':
      return readProperty(scope, expression.name);
    case 'member':
      return readProperty(evaluate(expression.object, scope), evaluate(expression.property, scope));
    case 'not':
      return !truthy(evaluate(expression.operand, scope));
    case 'conditional':
      return truthy(evaluate(expression.test, scope))
        ? evaluate(expression.consequent, scope)
        : evaluate(expression.alternate, scope);
    case 'binary': {
      const left = evaluate(expression.left, scope);
      switch (expression.operator) {
        case '||':
          return truthy(left) ? left : evaluate(expression.right, scope);
        case '&&':
          return truthy(left) ? evaluate(expression.right, scope) : left;
        case '??':
          return left ?? evaluate(expression.right, scope);
        default:
          break;
      }
      const right = evaluate(expression.right, scope);
      switch (expression.operator) {
        case '===':
          return left === right;
        case '!==':
          return left !== right;
        case '==':
          return looseEquals(left, right);
        case '!=':
          return !looseEquals(left, right);
        case '+':
          return add(left, right);
        default:
          return compare(expression.operator, left, right);
      }
    }
  }
}

/** What `${…}` prints: strings as they are, numbers and booleans as text, nothing for null, undefined and objects. */
export function printValue(value: TemplateValue): string {
  if (value === null || value === undefined) return '';
  return toText(value);
}
