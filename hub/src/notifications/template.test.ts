// biome-ignore-all lint/suspicious/noTemplateCurlyInString: notification templates are plain strings holding ${…} on purpose
import { describe, expect, it } from 'vitest';
import { compileTemplate, createTemplateRenderer, renderCompiled, templateProblem } from './template';
import { TemplateSyntaxError } from './template-expression';

const container = {
  name: 'web',
  displayName: 'Web shop',
  updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '2.0.0', semverDiff: 'major' },
  result: { tag: '2.0.0', link: 'https://example.com/releases/2.0.0' },
  labels: { 'dd.group': 'shop' },
  env: [{ key: 'API_TOKEN', value: '***' }],
};
const scope = { container, containers: [container, { ...container, name: 'api' }], event: 'update-available' };
const render = (source: string) => renderCompiled(compileTemplate(source), scope);

describe('notification templates', () => {
  it('prints property paths, counts and the event', () => {
    expect(
      render(
        'New ${container.updateKind.kind} for ${container.name}: ${container.updateKind.localValue} → ${container.updateKind.remoteValue}',
      ),
    ).toBe('New tag for web: 1.0.0 → 2.0.0');
    expect(render('${containers.length} updates (${event})')).toBe('2 updates (update-available)');
    expect(render("${containers[1].name} ${container.labels['dd.group']} ${container.env[0].value}")).toBe(
      'api shop ***',
    );
    expect(render('cost: $5, ${container.name}$')).toBe('cost: $5, web$');
  });

  it('has fallbacks, the ternary, comparisons and concatenation', () => {
    expect(render('${container.missing || container.name}')).toBe('web');
    expect(render("${container.result.missing ?? 'none'}")).toBe('none');
    expect(render("${containers.length > 1 ? 'many' : 'one'}")).toBe('many');
    expect(render("${container.updateKind.semverDiff === 'major' ? 'BIG ' : ''}${container.name}")).toBe('BIG web');
    expect(render('${container.result && container.result.link ? "\\n" + container.result.link : ""}')).toBe(
      '\nhttps://example.com/releases/2.0.0',
    );
    expect(render('${!container.missing}')).toBe('true');
    expect(render('${container.missing == null}')).toBe('true');
    expect(render("${'}' + container.name}")).toBe('}web');
  });

  it('prints nothing for missing values, objects and anything reached through the prototype', () => {
    for (const source of [
      '${container.nope.deeper.still}',
      '${container}',
      '${container.updateKind}',
      '${container.constructor}',
      '${container.__proto__}',
      "${container['__proto__']}",
      '${container.constructor.constructor}',
      '${container.name.constructor}',
      '${containers.map}',
      '${container.toString}',
      '${container.hasOwnProperty}',
      '${containers.constructor.prototype}',
      '${container.name.prototype}',
      '${nothing}',
      '${Function}',
      '${globalThis}',
      '${this}',
    ]) {
      expect(render(source), source).toBe('');
    }
  });

  it('does not read getters or inherited members of the data', () => {
    let called = false;
    const hostile = Object.create({ inherited: 'x' }) as Record<string, unknown>;
    Object.defineProperty(hostile, 'secret', {
      enumerable: true,
      get: () => {
        called = true;
        return 'leaked';
      },
    });
    const plain: Record<string, unknown> = {};
    Object.defineProperty(plain, 'secret', {
      enumerable: true,
      get: () => {
        called = true;
        return 'leaked';
      },
    });
    expect(renderCompiled(compileTemplate('${a.inherited}${a.secret}${b.secret}'), { a: hostile, b: plain })).toBe('');
    expect(called).toBe(false);
  });

  it('refuses broken expressions with their position', () => {
    for (const source of [
      '${',
      '${container.}',
      '${a +}',
      '${(a}',
      "${'open}",
      '${a ? b}',
      '${}',
      '${a = 1}',
      '${a()}',
      '${a; b}',
      '${`x`}',
    ]) {
      expect(() => compileTemplate(source), source).toThrow(TemplateSyntaxError);
      expect(templateProblem(source), source).toMatch(/at \d+$/);
    }
    expect(templateProblem('${container.name}')).toBeUndefined();
  });

  it('bounds nesting and length', () => {
    expect(() => compileTemplate(`\${${'('.repeat(200)}a${')'.repeat(200)}}`)).toThrow(/nested too deeply/);
    expect(() => compileTemplate('x'.repeat(20_000))).toThrow(/longer than/);
    expect(compileTemplate(`\${${'a + '.repeat(400)}a}`)).toHaveLength(1);
  });

  it('renders a template that does not compile as its own text', () => {
    const renderer = createTemplateRenderer();
    expect(renderer('Broken ${container.}', scope)).toBe('Broken ${container.}');
    expect(renderer('${container.name}', scope)).toBe('web');
  });
});
